"""MCP servers from the user's settings reach the agent of a server conversation.

A server process with MCP enabled, settings holding an SSE `mcp_config`, a real MCP server
(tests.support.mcp_server) and a scripted LLM that calls its `add` tool when offered:
settings → agent session (server-api §8.2 steps 2 and 8) → tools → MCPAction →
MCPObservation, read back through the REST events route.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.helpers import settings_body, stop, wait_agent_state, wait_status
from tests.server.server_process import ServerProcess, config_toml
from tests.support import scripted_llm as s
from tests.support.mcp_server import TEST_API_KEY, MCPTestServer
from tests.support.scripted_llm import ScriptedLLMServer


def add_when_offered(body: dict[str, Any]) -> s.ScriptItem:
    tools = [tool["function"]["name"] for tool in body.get("tools") or []]
    if not tools:
        return s.text("Scripted title")
    messages = body.get("messages") or []
    if messages and messages[-1].get("role") == "tool":
        return s.text("done")
    if "add" not in tools:
        return s.text("no add tool was offered")
    return s.tool_call("add", {"a": 20, "b": 22})


@pytest.fixture
def mcp_sse() -> Iterator[MCPTestServer]:
    with MCPTestServer("sse", api_key=TEST_API_KEY) as server:
        yield server


@pytest.fixture
def server(tmp_path: Path, mcp_sse: MCPTestServer) -> Iterator[ServerProcess]:
    llm = ScriptedLLMServer([], fallback=add_when_offered).start()
    root = tmp_path / "server"
    config = config_toml(root).replace("enable_mcp = false", "enable_mcp = true")
    process = ServerProcess(root, config=config).start()
    try:
        mcp_config = {"sse_servers": [{"url": mcp_sse.url, "api_key": TEST_API_KEY}]}
        response = httpx.post(
            f"{process.url}/api/settings",
            json=settings_body(llm.base_url, mcp_config=mcp_config),
        )
        assert response.status_code == 200, response.text
        yield process
    finally:
        process.stop()
        llm.stop()


async def test_settings_mcp_servers_give_the_agent_tools_it_calls(
    server: ServerProcess, mcp_sse: MCPTestServer
) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
        settings = (await client.get("/api/settings")).json()
        assert [s["url"] for s in settings["mcp_config"]["sse_servers"]] == [mcp_sse.url]

        created = await client.post("/api/conversations", json={"initial_user_msg": "add"})
        assert created.status_code == 200, created.text
        conversation_id = created.json()["conversation_id"]
        await wait_status(client, conversation_id, "RUNNING")
        events = await wait_agent_state(client, conversation_id, "awaiting_user_input")
        await stop(client, conversation_id)

    system = next(e for e in events if e.get("action") == "system")
    offered = [tool["function"]["name"] for tool in system["args"]["tools"]]
    assert "add" in offered
    # The server's own endpoint (`http://localhost:<port>/mcp/mcp`, §8.2 step 2) is added.
    assert {"create_pr", "create_mr", "create_bitbucket_pr"} <= set(offered)
    call = next(e for e in events if e.get("action") == "call_tool_mcp")
    assert call["args"]["name"] == "add"
    assert call["args"]["arguments"] == {"a": 20, "b": 22}
    result = next(e for e in events if e.get("observation") == "mcp")
    assert result["cause"] == call["id"]
    assert result["extras"] == {"name": "add", "arguments": {"a": 20, "b": 22}}
    assert json.loads(result["content"])["content"][0]["text"] == "42"
