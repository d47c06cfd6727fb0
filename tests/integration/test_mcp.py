"""MCP tools through the whole headless stack (agent.md §2.1, runtime.md §10.8).

A real MCP server (tests.support.mcp_server, SSE or streamable HTTP) is configured in
`[mcp]`; run_controller gives its tools to CodeActAgent, the scripted LLM calls one over
LiteLLM, the LocalRuntime calls the server and the result comes back as an MCPObservation.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openhands.core.config import (
    MCPConfig,
    MCPSHTTPServerConfig,
    MCPSSEServerConfig,
    MCPStdioServerConfig,
)
from openhands.core.schema import AgentState
from openhands.events.action import MCPAction
from openhands.events.observation import ErrorObservation, MCPObservation
from openhands.runtime.impl.action_execution.action_execution_client import (
    ActionExecutionClient,
)
from tests.integration.harness import HeadlessRun, agent_actions, requires_tmux
from tests.support import scripted_llm as s
from tests.support.mcp_server import TEST_API_KEY, MCPTestServer, free_port, stdio_command
from tests.support.scripted_llm import ScriptedLLMServer

pytestmark = requires_tmux


@pytest.fixture(params=["sse", "shttp"])
def mcp_server(request: pytest.FixtureRequest) -> Iterator[MCPTestServer]:
    with MCPTestServer(request.param, api_key=TEST_API_KEY) as server:
        yield server


def mcp_config(server: MCPTestServer, *, dead_sse: bool = False) -> MCPConfig:
    config = MCPConfig()
    if server.transport == "sse":
        config.sse_servers = [MCPSSEServerConfig(url=server.url, api_key=TEST_API_KEY)]
    else:
        config.shttp_servers = [MCPSHTTPServerConfig(url=server.url, api_key=TEST_API_KEY)]
    if dead_sse:
        # Listed first, so discovery and calls must get past it.
        dead = MCPSSEServerConfig(url=f"http://127.0.0.1:{free_port()}/sse")
        config.sse_servers = [dead, *config.sse_servers]
    return config


def tool_names(tools: list[dict[str, Any]] | None) -> list[str]:
    return [tool["function"]["name"] for tool in tools or []]


def test_the_llm_calls_an_mcp_tool_and_reads_its_result(
    tmp_path: Path, scripted_llm: ScriptedLLMServer, mcp_server: MCPTestServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    run.config.mcp = mcp_config(mcp_server, dead_sse=True)
    scripted_llm.push(
        s.tool_call("add", {"a": 19, "b": 23}, call_id="call_add"),
        s.tool_call("finish", {"message": "It is 42."}),
    )

    state = run.run("What is 19 + 23? Use the add tool.")

    assert state.agent_state == AgentState.FINISHED
    # The tools reached the model after the built-ins, in the server's schema.
    offered = scripted_llm.completion_requests[0].tools
    names = tool_names(offered)
    assert {"add", "explode", "nap", "whoami"} <= set(names)
    assert names.index("add") > names.index("finish")
    add = next(t for t in offered or [] if t["function"]["name"] == "add")
    assert sorted(add["function"]["parameters"]["required"]) == ["a", "b"]

    events = run.events()
    calls = [a for a in agent_actions(events) if isinstance(a, MCPAction)]
    assert [(a.name, a.arguments) for a in calls] == [("add", {"a": 19, "b": 23})]
    results = [e for e in events if isinstance(e, MCPObservation)]
    assert len(results) == 1
    assert results[0].cause == calls[0].id
    assert (results[0].name, results[0].arguments) == ("add", {"a": 19, "b": 23})
    content = json.loads(results[0].content)
    assert content["isError"] is False
    assert content["content"][0]["text"] == "42"
    # The model got the result as the answer to its tool call.
    second = scripted_llm.completion_requests[1].messages
    answer = next(m for m in second if m["role"] == "tool")
    assert answer["tool_call_id"] == "call_add"
    assert "42" in json.dumps(answer["content"])


def test_a_server_gone_at_call_time_gives_a_clear_error_and_the_run_goes_on(
    tmp_path: Path, scripted_llm: ScriptedLLMServer, mcp_server: MCPTestServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    run.config.mcp = mcp_config(mcp_server)

    def stop_server_then_call(_request: dict[str, Any]) -> s.Reply:
        mcp_server.stop()  # the tools were listed at startup; now the server is gone
        return s.tool_call("add", {"a": 1, "b": 2})

    scripted_llm.push(stop_server_then_call, s.tool_call("finish", {"message": "Gave up."}))

    state = run.run("Add 1 and 2.")

    assert state.agent_state == AgentState.FINISHED
    events = run.events()
    assert not [e for e in events if isinstance(e, MCPObservation)]
    call = next(a for a in agent_actions(events) if isinstance(a, MCPAction))
    error = next(e for e in events if isinstance(e, ErrorObservation) and e.cause == call.id)
    assert error.content.startswith(
        "MCP tool 'add' is not offered by any reachable MCP server. Unreachable: "
    )
    assert mcp_server.url in error.content
    # The model read the error as the answer to its call.
    last = scripted_llm.completion_requests[1].messages
    assert "not offered by any reachable MCP server" in json.dumps(last[-1]["content"])


def test_unreachable_servers_at_startup_leave_only_the_builtin_tools(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    run.config.mcp = MCPConfig(
        sse_servers=[f"http://127.0.0.1:{free_port()}/sse"],
        shttp_servers=[f"http://127.0.0.1:{free_port()}/mcp"],
    )
    scripted_llm.push(s.tool_call("finish", {"message": "Nothing to do."}))

    state = run.run("Say hello.")

    assert state.agent_state == AgentState.FINISHED
    names = tool_names(scripted_llm.completion_requests[0].tools)
    assert "finish" in names
    assert "add" not in names


def test_a_stdio_server_runs_behind_the_sandbox_proxy_and_its_tool_is_called(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    run.config.mcp = MCPConfig(stdio_servers=[MCPStdioServerConfig(**stdio_command())])
    seen: dict[str, Any] = {}

    def look_then_call(_request: dict[str, Any]) -> s.Reply:
        runtime = run.runtime
        assert isinstance(runtime, ActionExecutionClient)
        seen["sse"] = [server.url for server in runtime.get_mcp_config().sse_servers]
        seen["url"] = runtime.action_execution_server_url
        return s.tool_call("add", {"a": 7, "b": 8})

    scripted_llm.push(look_then_call, s.tool_call("finish", {"message": "15."}))

    state = run.run("Add 7 and 8.")

    assert state.agent_state == AgentState.FINISHED
    assert "add" in tool_names(scripted_llm.completion_requests[0].tools)
    # The host reaches the stdio server through the sandbox's SSE proxy (runtime.md §10.8).
    assert seen["sse"] == [f"{seen['url']}/mcp/sse"]
    result = next(e for e in run.events() if isinstance(e, MCPObservation))
    assert result.name == "add"
    assert json.loads(result.content)["content"][0]["text"] == "15"


def test_a_stdio_server_that_cannot_start_is_skipped(
    tmp_path: Path, scripted_llm: ScriptedLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    broken = MCPStdioServerConfig(name="broken", command=str(tmp_path / "no-such-command"))
    run.config.mcp = MCPConfig(stdio_servers=[broken])
    scripted_llm.push(s.tool_call("finish", {"message": "Nothing to do."}))

    with caplog.at_level(logging.WARNING, logger="openhands"):
        state = run.run("Say hello.")

    assert state.agent_state == AgentState.FINISHED
    names = tool_names(scripted_llm.completion_requests[0].tools)
    assert "finish" in names
    assert "add" not in names
    assert "MCP proxy of the sandbox: broken: FileNotFoundError" in caplog.text
