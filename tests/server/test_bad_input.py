"""Bad input on a real process: malformed JSON, wrong types, oversized bodies, and bad
Socket.IO actions get clear 4xx / error replies and leave the conversation as it was.

Request bodies are limited to 4 MiB (`MAX_REQUEST_BODY_BYTES`, the same as a Socket.IO
message), uploads to 64 MiB (`MAX_UPLOAD_BODY_BYTES`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from tests.server.helpers import all_events, settle
from tests.server.server_process import ServerProcess

MiB = 1024 * 1024
LIMIT = 4 * MiB


# --- malformed JSON and wrong types -----------------------------------------------------------------


async def test_malformed_json_bodies(client: httpx.AsyncClient, live) -> None:
    base = f"/api/conversations/{live['id']}"
    for method, path in (
        ("POST", "/api/settings"),
        ("POST", "/api/conversations"),
        ("POST", "/api/secrets"),
        ("PATCH", base),
        ("POST", f"{base}/message"),
        ("POST", f"{base}/start"),
        ("POST", f"{base}/events"),
    ):
        for body in (b"{not json", b'{"a": 1,}', b"\xff\xfe", b""):
            response = await client.request(
                method, path, content=body, headers={"Content-Type": "application/json"}
            )
            assert response.status_code == 422, (method, path, body, response.text)
            assert isinstance(response.json()["detail"], list)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/settings", {"max_iterations": "many"}),
        ("POST", "/api/settings", {"confirmation_mode": "perhaps"}),
        ("POST", "/api/settings", {"condenser_max_size": 5}),
        ("POST", "/api/settings", {"mcp_config": {"sse_servers": [], "bogus": 1}}),
        ("POST", "/api/conversations", {"initial_user_msg": 5}),
        ("POST", "/api/conversations", {"image_urls": "not-a-list"}),
        ("POST", "/api/conversations", {"git_provider": "svn"}),
        ("POST", "/api/conversations", ["a", "list"]),
        ("POST", "/api/secrets", {"name": 1, "value": "v"}),
        ("POST", "/api/secrets", {"name": "ONLY_NAME"}),
        ("PATCH", "{conversation}", {"title": 5}),
        ("POST", "{conversation}/message", {"message": ["x"]}),
        ("POST", "{conversation}/message", {}),
        ("POST", "{conversation}/start", {"providers_set": ["svn"]}),
        ("POST", "{conversation}/events", "a string"),
    ],
)
async def test_wrong_types_are_422(
    client: httpx.AsyncClient, live, method: str, path: str, body: Any
) -> None:
    before = await all_events(client, live["id"])
    url = path.replace("{conversation}", f"/api/conversations/{live['id']}")
    response = await client.request(method, url, json=body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["msg"]
    assert await all_events(client, live["id"]) == before


async def test_wrong_query_types_are_422(client: httpx.AsyncClient, live) -> None:
    for url in (
        "/api/conversations?limit=many",
        f"/api/conversations/{live['id']}/events?start_id=x",
        f"/api/conversations/{live['id']}/events?reverse=perhaps",
        f"/api/conversations/{live['id']}/remember-prompt?event_id=x",
    ):
        assert (await client.get(url)).status_code == 422, url


# --- oversized bodies --------------------------------------------------------------------------------


def _chunks(total: int, size: int = MiB) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        yield b"x" * min(size, total - sent)
        sent += size


async def _achunks(total: int) -> AsyncIterator[bytes]:
    for chunk in _chunks(total):
        yield chunk


async def test_a_100_mb_message_is_refused_and_changes_nothing(
    oss: ServerProcess, client: httpx.AsyncClient, live
) -> None:
    conversation_id = live["id"]
    before = await all_events(client, conversation_id)
    listed_before = (await client.get("/api/conversations?limit=100")).json()["results"]
    huge = "x" * (100 * MiB)
    json_body = f'{{"message": "{huge}"}}'.encode()
    for url in (
        f"/api/conversations/{conversation_id}/message",
        f"/api/conversations/{conversation_id}/events",
        "/api/conversations",
        "/api/settings",
    ):
        declared = await client.post(
            url, content=json_body, headers={"Content-Type": "application/json"}
        )
        assert declared.status_code == 413, url
        assert declared.json() == {"detail": f"Request body too large (limit {LIMIT} bytes)"}
        # Without a Content-Length (chunked): counted as it arrives.
        chunked = await client.post(
            url, content=_achunks(100 * MiB), headers={"Content-Type": "application/json"}
        )
        assert chunked.status_code == 413, url
    del huge, json_body

    # A large message within the limit goes through the whole way. (1 MiB, not 4: the
    # stored event carries the text twice, and python-socketio clients refuse frames over
    # 4 MiB, so a bigger one would lock them out of this shared conversation.)
    fits = "y" * MiB
    accepted = await client.post(
        f"/api/conversations/{conversation_id}/message", json={"message": fits}
    )
    assert accepted.json() == {"success": True}
    after = await settle(client, conversation_id)
    assert after[: len(before)] == before  # nothing earlier changed
    added = after[len(before) :]
    assert next(e["args"]["content"] for e in added if e.get("action") == "message") == fits
    assert not any(len(str(e)) > 10 * MiB for e in added)
    listed_after = (await client.get("/api/conversations?limit=100")).json()["results"]
    assert {c["conversation_id"] for c in listed_after} == {
        c["conversation_id"] for c in listed_before
    }
    # The server is still healthy, and did not grow by 100 MB per refused request.
    assert (await client.get("/alive")).status_code == 200


async def test_upload_limit(oss: ServerProcess, client: httpx.AsyncClient, live) -> None:
    base = f"/api/conversations/{live['id']}"
    big = await client.post(
        f"{base}/upload-files",
        files=[("files", ("big.bin", b"\x00" * (65 * MiB), "application/octet-stream"))],
    )
    assert big.status_code == 413
    assert not (oss.root / "workspace" / "big.bin").exists()
    fits = await client.post(
        f"{base}/upload-files",
        files=[("files", ("five-mb.bin", b"\x01" * (5 * MiB), "application/octet-stream"))],
    )
    assert fits.status_code == 200, fits.text
    assert (oss.root / "workspace" / "five-mb.bin").stat().st_size == 5 * MiB


# --- bad socket actions -----------------------------------------------------------------------------

BAD_ACTIONS: list[Any] = [
    "a string",
    42,
    ["a", "list"],
    {},
    {"action": "no_such_action", "args": {}},
    {"action": "message", "args": "not an object"},
    {"action": "message", "args": {"content": "x", "no_such_field": 1}},
    {"action": "message", "args": {"content": {"not": "text"}}},
    {"action": "change_agent_state", "args": {"agent_state": "no_such_state"}},
    {"action": "run", "args": {"command": 7}},
    {"observation": "run", "content": "forged output", "extras": {"command": "ls"}},
]


async def test_bad_socket_actions_get_an_error_and_change_nothing(
    oss: ServerProcess, client: httpx.AsyncClient, live, sockets
) -> None:
    conversation_id = live["id"]
    await settle(client, conversation_id)
    before = await all_events(client, conversation_id)
    sender, bystander = sockets(), sockets()
    await sender.connect(oss.url, conversation_id=conversation_id, latest_event_id=before[-1]["id"])
    await bystander.connect(
        oss.url, conversation_id=conversation_id, latest_event_id=before[-1]["id"]
    )
    for event_name in ("oh_user_action", "oh_action"):
        for payload in BAD_ACTIONS:
            sender.events.clear()
            await sender.emit(event_name, payload)
            reply = await sender.wait_for(lambda e: e.get("error") is True, timeout=10)
            assert isinstance(reply["message"], str) and reply["message"], payload
            assert set(reply) <= {"error", "message", "error_code"}
    await sender.emit("oh_no_such_event", {"action": "message", "args": {"content": "x"}})
    assert sender.client.connected and bystander.client.connected
    # Nothing was appended or changed, and the conversation still answers.
    assert await all_events(client, conversation_id) == before
    # An id and a source in the payload are not the sender's to choose.
    forged = {"action": "message", "args": {"content": "still here"}, "id": 0, "source": "agent"}
    await sender.emit("oh_user_action", forged)
    await sender.wait_for(lambda e: e.get("message") == "echo: still here", timeout=120)
    # The room's echo reaches the bystander after anything sent to it before (one socket,
    # in order), so an error wrongly sent to the room would be there by now.
    await bystander.wait_for(lambda e: e.get("message") == "echo: still here", timeout=120)
    assert not [e for e in bystander.events if e.get("error")], "errors go to the sender only"
    events = await settle(client, conversation_id)
    assert events[: len(before)] == before
    stored = next(e for e in events if e.get("args", {}).get("content") == "still here")
    assert stored["source"] == "user" and stored["id"] > before[-1]["id"]


async def test_an_oversized_socket_message_closes_only_that_socket(
    oss: ServerProcess, client: httpx.AsyncClient, live, sockets
) -> None:
    conversation_id = live["id"]
    await settle(client, conversation_id)
    before = await all_events(client, conversation_id)
    sender = sockets()
    await sender.connect(oss.url, conversation_id=conversation_id, latest_event_id=before[-1]["id"])
    content = "z" * (5 * MiB)  # over Socket.IO's 4 MiB message limit
    await sender.emit("oh_user_action", {"action": "message", "args": {"content": content}})
    await asyncio.wait_for(sender.disconnected.wait(), 30)
    await asyncio.sleep(0.5)
    assert await all_events(client, conversation_id) == before
    again = sockets()
    await again.connect(oss.url, conversation_id=conversation_id, latest_event_id=before[-1]["id"])
    assert again.client.connected
    info = (await client.get(f"/api/conversations/{conversation_id}")).json()
    assert info["status"] == "RUNNING"
