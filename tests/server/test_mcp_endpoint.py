"""The server's own MCP endpoint `/mcp/mcp` (server-api §6.7) in a real server process.

A local HTTP stand-in plays GitHub's and GitLab's REST APIs. The agent's own MCP client
(the SDK's streamable-HTTP client underneath) lists the tools and calls them with the
conversation header; the stand-in sees the provider request with the stored token, the
tool answers with the PR/MR URL, and `GET /api/conversations/{id}` shows the number.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.core.config.mcp_config import MCPConfig, MCPSHTTPServerConfig
from openhands.core.logger import openhands_logger
from openhands.mcp.client import MCPClient, RemoteMCPServer
from openhands.mcp.utils import fetch_mcp_tools_from_config
from openhands.server.mcp_endpoint import conversation_mcp_key
from openhands.server.session.settings_overrides import apply_settings
from openhands.storage.data_models.settings import Settings
from tests.server.helpers import write_conversation
from tests.server.server_process import JWT_SECRET, ServerProcess, free_port

GITHUB_TOKEN = "ghp_mcp_endpoint"
GITLAB_TOKEN = "glpat_mcp_endpoint"


@dataclass
class Received:
    method: str
    path: str
    authorization: str
    body: Any


@dataclass
class ProviderStandIn:
    url: str
    requests: list[Received] = field(default_factory=list)


def _answer(path: str, authorization: str, body: Any) -> tuple[int, Any]:
    if path == "/user":  # token check of POST /api/add-git-providers
        ok = authorization == f"Bearer {GITHUB_TOKEN}"
        return (200, {"id": 1, "login": "octo"}) if ok else (401, {"message": "Bad credentials"})
    if path == "/repos/octo/hello/pulls":
        if authorization != f"Bearer {GITHUB_TOKEN}":
            return 401, {"message": "Bad credentials"}
        if body.get("head") == "no-such-branch":
            return 422, {"message": "Validation Failed", "errors": [{"field": "head"}]}
        return 201, {"number": 17, "html_url": "https://github.example/octo/hello/pull/17"}
    if path == "/api/v4/user":  # token check of the GitLab token (stored with this host)
        ok = authorization == f"Bearer {GITLAB_TOKEN}"
        return (200, {"id": 2, "username": "group"}) if ok else (401, {"message": "401"})
    if path == "/api/v4/projects/group%2Fproj/merge_requests":
        if authorization != f"Bearer {GITLAB_TOKEN}":
            return 401, {"message": "401 Unauthorized"}
        return 201, {"iid": 5, "web_url": "https://gitlab.example/group/proj/-/merge_requests/5"}
    return 404, {"message": "Not Found"}


@pytest.fixture
def provider() -> Iterator[ProviderStandIn]:
    stand_in = ProviderStandIn(url="")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else {}
            authorization = self.headers.get("Authorization", "")
            stand_in.requests.append(Received(self.command, self.path, authorization, body))
            status, answer = _answer(self.path.split("?")[0], authorization, body)
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = _handle
        do_POST = _handle

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stand_in.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stand_in
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def server(tmp_path: Path, provider: ProviderStandIn) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path / "server", env={"GITHUB_API_URL": provider.url}).start()
    try:
        yield process
    finally:
        process.stop()


def mcp(
    server: ServerProcess, conversation_id: str | None, api_key: str | None = None
) -> MCPClient:
    """The agent's client, with the conversation's key (as its MCP config carries it)
    unless ``api_key`` is given."""
    if api_key is None and conversation_id is not None:
        api_key = conversation_mcp_key(JWT_SECRET, conversation_id)
    remote = RemoteMCPServer(f"{server.url}/mcp/mcp", "shttp", api_key)
    return MCPClient(remote, conversation_id)


def text_of(result: Any) -> str:
    return "\n".join(getattr(part, "text", "") for part in result.content)


PR_ARGS = {
    "repo_name": "octo/hello",
    "source_branch": "feature-x",
    "target_branch": "main",
    "title": "Add x",
    "body": "Adds x.",
}


async def test_tools_open_prs_and_record_their_numbers(
    server: ServerProcess, provider: ProviderStandIn
) -> None:
    conversation_id = write_conversation(server.store)
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        # Listing works before any token is stored (and starts the endpoint lazily).
        tools = await mcp(server, conversation_id).list_tools()
        assert {tool.name for tool in tools} == {"create_pr", "create_mr", "create_bitbucket_pr"}
        create_pr = next(tool for tool in tools if tool.name == "create_pr")
        assert create_pr.description
        assert set(create_pr.input_schema["required"]) == {
            "repo_name",
            "source_branch",
            "target_branch",
            "title",
        }

        no_token = await mcp(server, conversation_id).call_tool("create_pr", PR_ARGS)
        assert no_token.is_error
        assert "No github token is stored" in text_of(no_token)
        assert provider.requests == []  # nothing was sent without a token

        stored = await http.post(
            "/api/add-git-providers",
            json={
                "provider_tokens": {
                    "github": {"token": GITHUB_TOKEN, "host": "github.com"},
                    "gitlab": {"token": GITLAB_TOKEN, "host": provider.url},
                }
            },
        )
        assert stored.status_code == 200, stored.text
        provider.requests.clear()

        result = await mcp(server, conversation_id).call_tool("create_pr", PR_ARGS)
        assert not result.is_error, text_of(result)
        assert text_of(result) == "https://github.example/octo/hello/pull/17"
        [sent] = provider.requests
        assert (sent.method, sent.path) == ("POST", "/repos/octo/hello/pulls")
        assert sent.authorization == f"Bearer {GITHUB_TOKEN}"
        assert sent.body == {
            "title": "Add x",
            "head": "feature-x",
            "base": "main",
            "body": "Adds x.",
            "draft": True,
        }

        merge = await mcp(server, conversation_id).call_tool(
            "create_mr",
            {"id": "group/proj", "source_branch": "b", "target_branch": "main", "title": "T"},
        )
        assert not merge.is_error, text_of(merge)
        assert text_of(merge) == "https://gitlab.example/group/proj/-/merge_requests/5"
        assert provider.requests[-1].path == "/api/v4/projects/group%2Fproj/merge_requests"
        assert provider.requests[-1].authorization == f"Bearer {GITLAB_TOKEN}"
        assert provider.requests[-1].body["source_branch"] == "b"

        info = (await http.get(f"/api/conversations/{conversation_id}")).json()
        assert info["pr_number"] == [17, 5]

        # The provider's refusal comes back as the tool's error, with its reason.
        refused = await mcp(server, conversation_id).call_tool(
            "create_pr", {**PR_ARGS, "source_branch": "no-such-branch"}
        )
        assert refused.is_error
        assert "GitHub refused the request (422): Validation Failed" in text_of(refused)
        info = (await http.get(f"/api/conversations/{conversation_id}")).json()
        assert info["pr_number"] == [17, 5]


async def test_calls_without_the_conversation_key_are_refused(
    server: ServerProcess, provider: ProviderStandIn
) -> None:
    """Conversation ids are not secret: knowing one must not let anybody open a PR with the
    owner's token. Without the key, with another conversation's key or with a made-up one
    the endpoint answers 401 and no provider request is made."""
    conversation_id = write_conversation(server.store)
    other_id = write_conversation(server.store)
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        stored = await http.post(
            "/api/add-git-providers",
            json={"provider_tokens": {"github": {"token": GITHUB_TOKEN, "host": "github.com"}}},
        )
        assert stored.status_code == 200, stored.text
    provider.requests.clear()
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "create_pr", "arguments": PR_ARGS},
    }
    base_headers = {
        "Accept": "application/json, text/event-stream",
        "X-OpenHands-ServerConversation-ID": conversation_id,
    }
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        for extra in (
            {},
            {"X-Session-API-Key": conversation_mcp_key(JWT_SECRET, other_id)},
            {"Authorization": "Bearer not-the-key"},
            {"X-Session-API-Key": conversation_mcp_key("another-secret", conversation_id)},
        ):
            refused = await http.post("/mcp/mcp", json=call, headers={**base_headers, **extra})
            assert refused.status_code == 401, (extra, refused.text)
            assert refused.json() == {"detail": "Unauthorized"}
    with pytest.raises(Exception):  # noqa: B017 - the SDK client's error type is internal
        await mcp(server, conversation_id, api_key="").list_tools()
    other_key = conversation_mcp_key(JWT_SECRET, other_id)
    with pytest.raises(Exception):  # noqa: B017
        await mcp(server, conversation_id, api_key=other_key).call_tool("create_pr", PR_ARGS)
    assert provider.requests == []

    # The right key, as a Bearer token or as X-Session-API-Key, opens the PR.
    result = await mcp(server, conversation_id).call_tool("create_pr", PR_ARGS)
    assert not result.is_error, text_of(result)
    assert [r.path for r in provider.requests] == ["/repos/octo/hello/pulls"]


async def test_unknown_or_missing_conversation_is_a_clear_error(
    server: ServerProcess, provider: ProviderStandIn
) -> None:
    unknown = await mcp(server, "0" * 32).call_tool("create_pr", PR_ARGS)
    assert unknown.is_error
    assert f"Conversation {'0' * 32} not found." in text_of(unknown)
    assert provider.requests == []


async def test_endpoint_takes_the_session_key_and_keeps_the_spa_rules(tmp_path: Path) -> None:
    """With SESSION_API_KEY set, `/api` routes need the key, and `/mcp/mcp` takes it as the
    owner's credential (no conversation header needed). The SPA is served: client routes
    get `index.html`, unknown `/api` paths keep their JSON 404, and other `/mcp/...` paths
    are never the SPA's page."""
    build = tmp_path / "build"
    build.mkdir()
    (build / "index.html").write_text("<html>spa</html>")
    env = {"SESSION_API_KEY": "sekrit", "SERVE_FRONTEND": "true", "FRONTEND_DIR": str(build)}
    process = ServerProcess(tmp_path / "keyed", env=env).start()
    try:
        tools = await mcp(process, None, api_key="sekrit").list_tools()
        assert "create_pr" in {tool.name for tool in tools}
        missing = await mcp(process, None, api_key="sekrit").call_tool("create_pr", PR_ARGS)
        assert missing.is_error
        assert "X-OpenHands-ServerConversation-ID header is missing" in text_of(missing)
        async with httpx.AsyncClient(base_url=process.url, timeout=30) as http:
            assert (await http.get("/api/settings")).status_code == 401
            spa = await http.get("/conversations/abc")
            assert spa.status_code == 200 and "spa" in spa.text
            api_404 = await http.get("/api/no-such-route", headers={"X-Session-API-Key": "sekrit"})
            assert api_404.status_code == 404
            assert api_404.headers["content-type"].startswith("application/json")
            elsewhere = await http.get("/mcp/elsewhere")
            assert elsewhere.status_code == 401 and "spa" not in elsewhere.text
            keyed = await http.get("/mcp/elsewhere", headers={"X-Session-API-Key": "sekrit"})
            assert keyed.status_code == 404 and "spa" not in keyed.text
    finally:
        process.stop()


def test_conversation_config_lists_the_server_endpoint_once() -> None:
    config = OpenHandsConfig(mcp_host="localhost:4567")
    own = "http://localhost:4567/mcp/mcp"
    applied = apply_settings(config, Settings())
    assert [server.url for server in applied.mcp.shttp_servers] == [own]
    config.jwt_secret = SecretStr(JWT_SECRET)
    keyed = apply_settings(config, Settings(), "abc")
    assert [server.api_key for server in keyed.mcp.shttp_servers] == [
        conversation_mcp_key(JWT_SECRET, "abc")
    ]
    assert config.mcp.shttp_servers == []  # the app config itself is left alone
    listed = Settings(
        mcp_config=MCPConfig(
            shttp_servers=[
                MCPSHTTPServerConfig(url="http://other/mcp"),
                MCPSHTTPServerConfig(url=own),
            ]
        )
    )
    applied = apply_settings(config, listed, "abc")
    assert [server.url for server in applied.mcp.shttp_servers] == ["http://other/mcp", own]
    assert [server.api_key for server in applied.mcp.shttp_servers] == [
        None,
        conversation_mcp_key(JWT_SECRET, "abc"),
    ]


async def test_unreachable_server_endpoint_costs_no_time_at_start() -> None:
    """Where nothing listens on `mcp_host` (e.g. no web server), listing its tools at
    conversation start fails at once and the conversation goes on without them."""
    config = apply_settings(OpenHandsConfig(mcp_host=f"localhost:{free_port()}"), Settings())
    # "At once" without a clock: the refused connection is what ends the listing (a
    # ConnectError in the warning), not the list timeout running out.
    warnings: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: warnings.append(record.getMessage())  # type: ignore[method-assign]
    openhands_logger.addHandler(handler)
    try:
        assert await fetch_mcp_tools_from_config(config.mcp, "0" * 32) == []
    finally:
        openhands_logger.removeHandler(handler)
    assert any("ConnectError" in warning for warning in warnings), warnings
