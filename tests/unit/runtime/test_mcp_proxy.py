"""The sandbox's MCP proxy state (runtime.md §3.6) with a real stdio MCP server.

Serving the proxy over SSE through the action execution server is covered end to end by
tests/integration/test_mcp.py (LocalRuntime).
"""

from __future__ import annotations

import os
import shlex
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from openhands.mcp.client import MCPClient, MCPServerUnavailableError, RemoteMCPServer
from openhands.runtime.server import mcp_proxy
from openhands.runtime.server.app import SessionKeyMiddleware
from openhands.runtime.server.mcp_proxy import MCPProxyRoutes, MCPProxyState, StdioServer
from tests.support.mcp_server import free_port, stdio_command


def test_posted_configs_are_checked_for_shape() -> None:
    parsed = StdioServer.parse({"name": "a", "command": "npx", "args": ["-y"], "env": {"K": "v"}})
    assert parsed == StdioServer("a", "npx", ["-y"], {"K": "v"})
    with pytest.raises(ValueError, match="needs a `name` and a `command`"):
        StdioServer.parse({"name": "a"})
    with pytest.raises(ValueError, match="`args` must be a list of strings"):
        StdioServer.parse({"name": "a", "command": "x", "args": "-y"})
    with pytest.raises(ValueError, match="must be an object"):
        StdioServer.parse("npx")


async def test_servers_start_and_the_broken_ones_are_reported() -> None:
    state = MCPProxyState()
    try:
        errors = await state.replace(
            [stdio_command(), {"name": "half"}, {"name": "gone", "command": "/no/such/cmd"}]
        )

        assert state.proxy is not None
        assert state.proxy.server_names == ["test-tools"]
        assert errors.startswith("invalid stdio server: a stdio server needs")
        assert "gone: FileNotFoundError" in errors
    finally:
        await state.close()
    assert state.proxy is None


async def test_servers_start_side_by_side_and_keep_the_posted_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server stuck in its start must not hold up the others (a microagent's `uvx` server
    with no network would otherwise delay every conversation start). The stuck one here only
    gets unstuck, and exits, once the good one has been launched: one after the other it
    would run into the start timeout instead."""
    monkeypatch.setattr(mcp_proxy, "START_TIMEOUT", 20.0)
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    stuck = {"name": "stuck", "command": "bash", "args": ["-c", f"read -r _ < {gate}; exit 3"]}
    good = stdio_command()
    python = shlex.join([good["command"], *good["args"]])
    good["command"], good["args"] = "bash", ["-c", f"(echo go > {gate} &); exec {python}"]
    # Same tool names in both servers would be won by the first posted, whatever starts first.
    twin = {**stdio_command(), "name": "test-tools-twin"}
    state = MCPProxyState()
    try:
        errors = await state.replace([stuck, twin, good])

        assert state.proxy is not None
        assert state.proxy.server_names == ["test-tools-twin", "test-tools"]
        assert errors.startswith("stuck: ") and "did not start" not in errors
        names = [tool.name for tool in state.proxy._tools]
        assert "add" in names and len(names) == len(set(names))
    finally:
        await state.close()


async def test_an_empty_list_serves_nothing_and_all_broken_serves_nothing() -> None:
    state = MCPProxyState()
    assert await state.replace([]) == ""
    assert state.proxy is None
    assert "broken: FileNotFoundError" in await state.replace(
        [{"name": "broken", "command": "/no/such/cmd"}]
    )
    assert state.proxy is None


# --- served over SSE behind the session key, as the action execution server does ---------

KEY = "sandbox-key"


@pytest.fixture
def proxy_url() -> Iterator[str]:
    """The proxy of one stdio test server behind SessionKeyMiddleware, on a free port."""
    state = MCPProxyState()

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        assert await state.replace([stdio_command()]) == ""
        yield
        await state.close()

    inner = Starlette(
        routes=[Route("/other", lambda _r: PlainTextResponse("other"))], lifespan=lifespan
    )
    app = SessionKeyMiddleware(MCPProxyRoutes(inner, state), api_key=KEY)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)


async def test_the_proxy_serves_the_stdio_tools_over_sse_with_the_session_key(
    proxy_url: str,
) -> None:
    client = MCPClient(RemoteMCPServer(f"{proxy_url}/mcp/sse", "sse", KEY))

    assert sorted(t.name for t in await client.list_tools()) == ["add", "explode", "nap", "whoami"]
    result = await client.call_tool_if_listed("add", {"a": 3, "b": 4})
    assert result is not None
    assert result.structured_content == {"result": 7}
    unknown = await client.call_tool("nope", {})
    assert unknown.is_error is True

    with pytest.raises(MCPServerUnavailableError, match="403"):
        await MCPClient(RemoteMCPServer(f"{proxy_url}/mcp/sse", "sse", "wrong")).list_tools()
    # Other paths go on to the app.
    assert httpx.get(f"{proxy_url}/other", headers={"X-Session-API-Key": KEY}).text == "other"


async def test_nothing_is_served_before_servers_are_posted() -> None:
    async def inner(scope: Scope, receive: Receive, send: Send) -> None:
        await PlainTextResponse("inner")(scope, receive, send)

    app = MCPProxyRoutes(inner, MCPProxyState())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://x") as http:
        assert (await http.get("/mcp/sse")).status_code == 404
        assert (await http.post("/mcp/messages/?session_id=1")).status_code == 404
        assert (await http.get("/mcp")).text == "inner"
