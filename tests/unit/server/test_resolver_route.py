"""POST /api/resolver/conversations: input is validated, a token is required, the route is
documented, and with a stored token a pull request's feedback, read from a stand-in GitHub
Enterprise over HTTPS, starts a conversation that works on it. (The resolver run itself is
covered end to end in tests/e2e/test_resolver.py.)"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.unit.resolver.provider_stand_in import StandInProvider, stand_in_provider
from tests.unit.server.conftest import Harness

URL = "/api/resolver/conversations"
TOKEN = "ghp_routeStoredToken77"
REPO_API = "/api/v3/repos/acme/greeter"


@pytest.mark.parametrize(
    "body",
    [
        {"issue_number": 1},
        {"repository": "https://evil.example/x", "issue_number": 1},
        {"repository": "../etc", "issue_number": 1},
        {"repository": "owner/repo", "issue_number": 0},
        {"repository": "owner/repo", "issue_number": 1, "issue_type": "merge"},
        {"repository": "owner/repo", "issue_number": 1, "unknown": True},
    ],
)
async def test_bad_input_is_a_422_naming_the_field(harness: Harness, body: dict) -> None:
    response = await harness.client.post(URL, json=body)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"][0] == "body"


async def test_without_a_git_token_it_is_a_401(harness: Harness) -> None:
    response = await harness.client.post(URL, json={"repository": "owner/repo", "issue_number": 3})
    assert response.status_code == 401
    assert "token" in response.json().lower()


async def test_the_route_is_in_the_openapi_schema(harness: Harness) -> None:
    schema = (await harness.client.get("/openapi.json")).json()
    operation = schema["paths"][URL]["post"]
    assert {"401", "404", "429"} <= set(operation["responses"])
    body = schema["components"]["schemas"]["ResolveIssueRequest"]
    assert set(body["properties"]) == {
        "repository", "issue_number", "issue_type", "git_provider", "comment_id",
    }  # fmt: skip


@pytest.fixture
def github(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInProvider]:
    """A stand-in GitHub Enterprise with one open pull request under review."""
    certificates = tmp_path / "tls"
    certificates.mkdir()
    with stand_in_provider(certificates) as (api, cert_file):
        monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
        api.on("GET", "/api/v3/user", (200, {"login": "octo", "id": 1}))
        pull = {
            "number": 2,
            "title": "Add farewell",
            "body": "Adds farewell(), see #5.",
            "head": {"ref": "feature/farewell"},
        }
        api.pages(f"{REPO_API}/pulls", [[pull]])
        api.pages(f"{REPO_API}/issues/2/comments", [[{"id": 31, "body": "Please add a test."}]])
        api.on("GET", f"{REPO_API}/issues/5", (200, {"body": "farewell() must say 'bye'."}))
        thread = {
            "id": "PRRT_1",
            "isResolved": False,
            "comments": {
                "totalCount": 1,
                "nodes": [{"body": "Return 'bye' here.", "path": "app.py", "fullDatabaseId": "41"}],
            },
        }
        metadata = {
            "closingIssuesReferences": {"edges": []},
            "url": "",
            "reviews": {"nodes": []},
            "reviewThreads": {"edges": [{"node": thread}]},
        }
        api.on(
            "POST",
            "/api/graphql",
            (200, {"data": {"repository": {"pullRequest": metadata}}}),
        )
        yield api


async def _events(harness: Harness, conversation_id: str) -> list[dict[str, Any]]:
    url = f"/api/conversations/{conversation_id}/events?limit=100"
    return (await harness.client.get(url)).json()["events"]  # type: ignore[no-any-return]


async def test_a_pull_request_review_starts_a_resolver_conversation(
    harness: Harness, github: StandInProvider
) -> None:
    # The session's memory gets the conversation instructions; keep what it is given.
    memory_inputs: list[Any] = []
    base_session = harness.manager.agent_session_cls

    class RecordingSession(base_session):  # type: ignore[misc,valid-type]
        async def _create_memory(self, config: Any, init_data: Any) -> Any:
            memory_inputs.append(init_data)
            return await super()._create_memory(config, init_data)

    harness.manager.agent_session_cls = RecordingSession
    await harness.store_settings()
    stored = await harness.client.post(
        "/api/add-git-providers",
        json={"provider_tokens": {"github": {"token": TOKEN, "host": github.domain}}},
    )
    assert stored.status_code == 200, stored.text

    response = await harness.client.post(
        URL, json={"repository": "acme/greeter", "issue_number": 2, "issue_type": "pr"}
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["issue_title"] == "Add farewell"
    assert body["selected_branch"] == "feature/farewell"
    conversation_id = body["conversation_id"]
    info = (await harness.client.get(f"/api/conversations/{conversation_id}")).json()
    assert info["trigger"] == "resolver"
    assert info["selected_repository"] == "acme/greeter"
    assert info["selected_branch"] == "feature/farewell"
    assert info["git_provider"] == "github"
    # The feedback was read with the stored token, from the host it was stored with.
    graphql = [r for r in github.requests if r.path == "/api/graphql"]
    assert graphql and graphql[0].headers["authorization"] == f"Bearer {TOKEN}"
    assert graphql[0].body["variables"] == {"owner": "acme", "repo": "greeter", "pr": 2}

    # The conversation's first message is the resolver's task for this feedback, pointing
    # at the repository's directory in the sandbox.
    first: dict[str, Any] | None = None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30.0
    while first is None:
        events = await _events(harness, conversation_id)
        first = next(
            (e for e in events if e.get("source") == "user" and e.get("action") == "message"),
            None,
        )
        if first is None:
            assert loop.time() < deadline, f"no initial message in {events}"
            await asyncio.sleep(0.05)
    message = first["message"]
    thread = json.dumps(["latest feedback:\nReturn 'bye' here.\n"], indent=4)
    assert thread in message  # the review thread, as the resolver renders it
    assert json.dumps(["app.py"], indent=4) in message  # its file
    assert "Please add a test." in message  # the PR's own comments
    assert "/workspace/greeter" in message and "/workspace\n" not in message
    # The issue the PR refers to (#5) reaches the conversation instructions.
    [init_data] = memory_inputs
    assert "farewell() must say 'bye'." in init_data.conversation_instructions


async def test_an_issue_that_is_not_open_is_a_404(
    harness: Harness, github: StandInProvider
) -> None:
    await harness.store_settings()
    await harness.client.post(
        "/api/add-git-providers",
        json={"provider_tokens": {"github": {"token": TOKEN, "host": github.domain}}},
    )
    github.pages(f"{REPO_API}/issues", [[]])
    response = await harness.client.post(
        URL, json={"repository": "acme/greeter", "issue_number": 9}
    )
    assert response.status_code == 404
    assert "9" in response.json()
    conversations = (await harness.client.get("/api/conversations")).json()
    assert conversations["results"] == []
