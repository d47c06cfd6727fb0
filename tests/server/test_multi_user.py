"""Multi-user isolation on a real process in JWT mode (``OPENHANDS_USER_AUTH=jwt``).

Users carry an HS256 token signed with the server's ``jwt_secret`` (header
``Authorization: Bearer``, the ``openhands_auth`` cookie, or the socket's ``auth`` payload).
Another user's conversation is refused on every route and on the socket; lists, settings
and secrets are per user.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import socketio

from tests.server.helpers import (
    bearer,
    settings_body,
    start_server,
    user_token,
    write_conversation,
)
from tests.server.server_process import ServerProcess

# Every route under /api/conversations/{id}: (method, path suffix, JSON body).
CONVERSATION_ROUTES: list[tuple[str, str, Any]] = [
    ("GET", "", None),
    ("PATCH", "", {"title": "stolen"}),
    ("DELETE", "", None),
    ("POST", "/start", {}),
    ("POST", "/stop", None),
    ("GET", "/events", None),
    ("POST", "/events", {"action": "message", "args": {"content": "injected"}}),
    ("POST", "/message", {"message": "injected"}),
    ("GET", "/microagents", None),
    ("GET", "/remember-prompt?event_id=0", None),
    ("POST", "/exp-config", {"config": {"a": "b"}}),
    ("GET", "/config", None),
    ("GET", "/vscode-url", None),
    ("GET", "/web-hosts", None),
    ("GET", "/list-files", None),
    ("GET", "/select-file?file=a.txt", None),
    ("GET", "/zip-directory", None),
    ("GET", "/git/changes", None),
    ("GET", "/git/diff?path=a.txt", None),
    ("GET", "/trajectory", None),
    ("POST", "/upload-files", None),
    ("POST", "/submit-feedback", {"email": "x@y.z", "version": "1", "polarity": "positive"}),
    ("GET", "/security/policy", None),
]


@pytest.fixture(scope="module")
def jwt_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("jwt")
    server = start_server(root, settings=False, env={"OPENHANDS_USER_AUTH": "jwt"})
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def alice_conversation(jwt_server: ServerProcess, llm) -> str:
    """Alice's settings, and a conversation she created (its loop starts in the background)."""
    headers = bearer("alice")
    stored = httpx.post(
        f"{jwt_server.url}/api/settings", json=settings_body(llm.base_url), headers=headers
    )
    assert stored.status_code == 200, stored.text
    created = httpx.post(
        f"{jwt_server.url}/api/conversations",
        json={"initial_user_msg": "hello from alice"},
        headers=headers,
        timeout=60,
    )
    assert created.status_code == 200, created.text
    return str(created.json()["conversation_id"])


async def _socket(url: str, conversation_id: str, **connect: Any) -> tuple[bool, Any]:
    """Connect a socket; (accepted, the CONNECT_ERROR payload or None)."""
    client = socketio.AsyncClient(reconnection=False)
    errors: list[Any] = []
    client.on("connect_error", lambda data: errors.append(data))
    try:
        await client.connect(
            f"{url}?conversation_id={conversation_id}",
            transports=["websocket"],
            wait_timeout=20,
            **connect,
        )
    except socketio.exceptions.ConnectionError:
        return False, errors[0] if errors else None
    await client.disconnect()
    return True, None


async def test_requests_without_a_valid_token_are_refused(jwt_server: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=jwt_server.url) as anonymous:
        for headers in (
            {},
            {"Authorization": "Bearer not-a-token"},
            {"Authorization": f"Bearer {user_token('alice', ttl=-10)}"},  # expired
        ):
            for path in ("/api/conversations", "/api/settings", "/api/secrets"):
                response = await anonymous.get(path, headers=headers)
                assert response.status_code == 401, (path, headers)
        assert (await anonymous.get("/alive")).status_code == 200
    accepted, error = await _socket(jwt_server.url, uuid.uuid4().hex)
    assert not accepted and error is not None


async def test_other_users_conversation_is_refused_everywhere(
    jwt_server: ServerProcess, alice_conversation: str
) -> None:
    conversation_id = alice_conversation
    async with httpx.AsyncClient(base_url=jwt_server.url, timeout=60) as http:
        mine = await http.get(f"/api/conversations/{conversation_id}", headers=bearer("alice"))
        assert mine.status_code == 200 and mine.json()["conversation_id"] == conversation_id
        assert mine.json()["trigger"] == "openhands_api"  # created with a bearer token
        before = await _events(http, conversation_id)

        for method, suffix, body in CONVERSATION_ROUTES:
            url = f"/api/conversations/{conversation_id}{suffix}"
            kwargs: dict[str, Any] = {"headers": bearer("bob")}
            if suffix == "/upload-files":
                kwargs["files"] = [("files", ("x.txt", b"x", "text/plain"))]
            elif body is not None:
                kwargs["json"] = body
            response = await http.request(method, url, **kwargs)
            assert response.status_code == 403, (
                method,
                suffix,
                response.status_code,
                response.text,
            )
            # The cookie carries the same identity.
            cookie = httpx.Cookies({"openhands_auth": user_token("bob")})
            kwargs.pop("headers")
            http.cookies = cookie
            response = await http.request(method, url, **kwargs)
            http.cookies = httpx.Cookies()
            assert response.status_code == 403, (method, suffix, "cookie", response.text)

        # Nothing bob did reached alice's conversation.
        after = await http.get(f"/api/conversations/{conversation_id}", headers=bearer("alice"))
        assert after.status_code == 200
        assert after.json()["title"] != "stolen"
        assert (jwt_server.store / "sessions" / conversation_id / "metadata.json").is_file()
        injected = [e for e in await _events(http, conversation_id) if "injected" in json.dumps(e)]
        assert injected == [] and len(before) >= 1
        assert not (jwt_server.store / "users" / "bob" / "conversations" / conversation_id).exists()

    accepted, error = await _socket(
        jwt_server.url, conversation_id, auth={"token": user_token("bob")}
    )
    assert not accepted and "Permission denied" in error["message"]
    accepted, _ = await _socket(
        jwt_server.url,
        conversation_id,
        headers={"Authorization": f"Bearer {user_token('bob')}"},
    )
    assert not accepted
    accepted, error = await _socket(
        jwt_server.url, conversation_id, auth={"token": user_token("alice")}
    )
    assert accepted, error


async def _events(http: httpx.AsyncClient, conversation_id: str) -> list[dict[str, Any]]:
    response = await http.get(
        f"/api/conversations/{conversation_id}/events",
        params={"limit": 100},
        headers=bearer("alice"),
    )
    assert response.status_code == 200, response.text
    return response.json()["events"]  # type: ignore[no-any-return]


async def test_lists_settings_and_secrets_are_per_user(
    jwt_server: ServerProcess, alice_conversation: str, llm
) -> None:
    bobs = [write_conversation(jwt_server.store, user_id="bob", title=f"bob {i}") for i in range(3)]
    carols = write_conversation(jwt_server.store, user_id="carol")
    async with httpx.AsyncClient(base_url=jwt_server.url, timeout=60) as http:
        alice_list = await _all_ids(http, "alice")
        bob_list = await _all_ids(http, "bob")
        assert alice_list == [alice_conversation]
        assert sorted(bob_list) == sorted(bobs)
        assert carols not in alice_list + bob_list
        # Pages are full pages of one's own conversations.
        page = (await http.get("/api/conversations?limit=2", headers=bearer("bob"))).json()
        assert len(page["results"]) == 2 and page["next_page_id"] is not None

        # Settings: bob has none until he stores his own; alice's stay hers.
        assert (await http.get("/api/settings", headers=bearer("bob"))).status_code == 404
        bob_settings = settings_body("http://127.0.0.1:9/v1", llm_model="openai/bob-model")
        stored = await http.post("/api/settings", json=bob_settings, headers=bearer("bob"))
        assert stored.status_code == 200
        alice_settings = (await http.get("/api/settings", headers=bearer("alice"))).json()
        assert alice_settings["llm_model"] == "openai/test-model"
        assert alice_settings["llm_base_url"] == llm.base_url
        bob_view = (await http.get("/api/settings", headers=bearer("bob"))).json()
        assert bob_view["llm_model"] == "openai/bob-model"

        # Secrets: the same name in two users' stores, with their own values.
        for user in ("alice", "bob"):
            created = await http.post(
                "/api/secrets",
                json={"name": "SHARED_NAME", "value": f"{user}-value"},
                headers=bearer(user),
            )
            assert created.status_code == 201, created.text
        alice_only = await http.post(
            "/api/secrets", json={"name": "ALICE_ONLY", "value": "a"}, headers=bearer("alice")
        )
        assert alice_only.status_code == 201
        bob_names = [
            s["name"]
            for s in (await http.get("/api/secrets", headers=bearer("bob"))).json()[
                "custom_secrets"
            ]
        ]
        assert bob_names == ["SHARED_NAME"]
        refused = await http.delete("/api/secrets/ALICE_ONLY", headers=bearer("bob"))
        assert refused.status_code == 404
        alice_names = [
            s["name"]
            for s in (await http.get("/api/secrets", headers=bearer("alice"))).json()[
                "custom_secrets"
            ]
        ]
        assert sorted(alice_names) == ["ALICE_ONLY", "SHARED_NAME"]


async def _all_ids(http: httpx.AsyncClient, user: str) -> list[str]:
    response = await http.get("/api/conversations?limit=100", headers=bearer(user))
    assert response.status_code == 200, response.text
    return [c["conversation_id"] for c in response.json()["results"]]
