"""Tool discovery, tool calls and giving the tools to agents, against real MCP servers."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from mcp_types import Tool

from openhands.agenthub.codeact_agent import CodeActAgent
from openhands.agenthub.readonly_agent import ReadOnlyAgent
from openhands.core.config import (
    MCPConfig,
    MCPSHTTPServerConfig,
    MCPSSEServerConfig,
    MCPStdioServerConfig,
    OpenHandsConfig,
)
from openhands.events.action import MCPAction
from openhands.events.observation import ErrorObservation, MCPObservation
from openhands.events.serialization import event_from_dict, event_to_dict
from openhands.mcp.tools import tool_to_schema
from openhands.mcp.utils import (
    add_mcp_tools_to_agent,
    call_tool_from_config,
    extra_stdio_servers,
    fetch_mcp_tools_from_config,
)
from tests.support.mcp_server import TEST_API_KEY as API_KEY
from tests.support.mcp_server import MCPTestServer, free_port
from tests.unit.agenthub.agents import agent_config, registry

TOOL_NAMES = ["add", "explode", "nap", "whoami"]


def config_of(*servers: MCPTestServer, api_key: str | None = API_KEY) -> MCPConfig:
    return MCPConfig(
        sse_servers=[
            MCPSSEServerConfig(url=s.url, api_key=api_key) for s in servers if s.transport == "sse"
        ],
        shttp_servers=[
            MCPSHTTPServerConfig(url=s.url, api_key=api_key)
            for s in servers
            if s.transport == "shttp"
        ],
    )


def dead_url(path: str) -> str:
    return f"http://127.0.0.1:{free_port()}{path}"


def names(tools: list[dict[str, Any]]) -> list[str]:
    return [tool["function"]["name"] for tool in tools]


def test_tool_schema_is_the_openai_function_form() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    tool = Tool(name="search", description=None, input_schema=schema)

    assert tool_to_schema(tool) == {
        "type": "function",
        "function": {"name": "search", "description": "", "parameters": schema},
    }


# --- discovery -----------------------------------------------------------------------------


async def test_fetch_lists_tools_of_every_transport(any_server: MCPTestServer) -> None:
    tools = await fetch_mcp_tools_from_config(config_of(any_server))
    assert sorted(names(tools)) == TOOL_NAMES


async def test_an_unreachable_server_is_logged_and_skipped(
    sse_server: MCPTestServer, caplog: pytest.LogCaptureFixture
) -> None:
    dead = dead_url("/mcp")
    config = config_of(sse_server)
    config.shttp_servers = [MCPSHTTPServerConfig(url=dead)]

    with caplog.at_level(logging.WARNING, logger="openhands"):
        tools = await fetch_mcp_tools_from_config(config)

    assert sorted(names(tools)) == TOOL_NAMES
    skipped = [r.getMessage() for r in caplog.records if "Skipping MCP server" in r.getMessage()]
    assert len(skipped) == 1
    assert dead in skipped[0]


async def test_only_unreachable_servers_give_no_tools() -> None:
    config = MCPConfig(sse_servers=[dead_url("/sse")], shttp_servers=[dead_url("/mcp")])
    assert await fetch_mcp_tools_from_config(config) == []


async def test_a_tool_offered_twice_is_listed_once(
    sse_server: MCPTestServer, shttp_server: MCPTestServer
) -> None:
    tools = await fetch_mcp_tools_from_config(config_of(sse_server, shttp_server))
    assert sorted(names(tools)) == TOOL_NAMES


# --- calls ---------------------------------------------------------------------------------


async def test_a_call_gives_an_observation_with_the_result_json(
    any_server: MCPTestServer,
) -> None:
    action = MCPAction(name="add", arguments={"a": 5, "b": 6})

    observation = await call_tool_from_config(config_of(any_server), action)

    assert isinstance(observation, MCPObservation)
    assert observation.name == "add"
    assert observation.arguments == {"a": 5, "b": 6}
    result = json.loads(observation.content)
    assert result["content"][0]["text"] == "11"
    assert result["isError"] is False
    # The event's wire form (events.md): observation `mcp`, extras name and arguments.
    wire = event_to_dict(observation)
    assert wire["observation"] == "mcp"
    assert wire["extras"] == {"name": "add", "arguments": {"a": 5, "b": 6}}
    assert event_from_dict(wire).content == observation.content


async def test_a_failing_tool_still_gives_an_mcp_observation(
    any_server: MCPTestServer,
) -> None:
    observation = await call_tool_from_config(config_of(any_server), MCPAction(name="explode"))

    assert isinstance(observation, MCPObservation)
    assert json.loads(observation.content)["isError"] is True


async def test_an_unknown_tool_gives_a_clear_error(any_server: MCPTestServer) -> None:
    observation = await call_tool_from_config(config_of(any_server), MCPAction(name="subtract"))

    assert isinstance(observation, ErrorObservation)
    assert observation.content == (
        "MCP tool 'subtract' is not offered by any reachable MCP server."
    )


async def test_the_call_goes_to_a_reachable_server_after_a_dead_one(
    shttp_server: MCPTestServer,
) -> None:
    config = config_of(shttp_server)
    config.sse_servers = [MCPSSEServerConfig(url=dead_url("/sse"))]

    observation = await call_tool_from_config(
        config, MCPAction(name="add", arguments={"a": 1, "b": 1})
    )

    assert isinstance(observation, MCPObservation)
    assert json.loads(observation.content)["content"][0]["text"] == "2"


async def test_an_unreachable_server_gives_an_error_naming_it() -> None:
    dead = dead_url("/sse")
    config = MCPConfig(sse_servers=[dead])

    observation = await call_tool_from_config(config, MCPAction(name="add", arguments={"a": 1}))

    assert isinstance(observation, ErrorObservation)
    assert observation.content.startswith(
        "MCP tool 'add' is not offered by any reachable MCP server. Unreachable: "
    )
    assert dead in observation.content


async def test_a_slow_tool_gives_a_timeout_error_result(sse_server: MCPTestServer) -> None:
    # SSE configs have no timeout of their own: the action's hard timeout applies.
    action = MCPAction(name="nap", arguments={"seconds": 30})
    action.set_hard_timeout(1)

    observation = await call_tool_from_config(config_of(sse_server), action)

    assert isinstance(observation, MCPObservation)
    assert json.loads(observation.content) == {
        "isError": True,
        "error": 'Tool "nap" timed out after 1 seconds',
        "content": [],
    }


async def test_no_remote_servers_gives_an_error() -> None:
    config = MCPConfig(stdio_servers=[MCPStdioServerConfig(name="fs", command="npx")])
    observation = await call_tool_from_config(config, MCPAction(name="read"))
    assert isinstance(observation, ErrorObservation)
    assert "no SSE or streamable-HTTP MCP servers are configured" in observation.content


# --- giving the tools to an agent ----------------------------------------------------------


class FakeRuntime:
    """What add_mcp_tools_to_agent needs of a runtime: config, sid and get_mcp_config."""

    def __init__(self, mcp: MCPConfig, search_api_key: str | None = None) -> None:
        self.config = OpenHandsConfig(mcp=mcp, search_api_key=search_api_key)
        self.sid = "conv-1"
        self.extra_seen: list[MCPStdioServerConfig] | None = None

    def get_mcp_config(self, extra: list[MCPStdioServerConfig] | None = None) -> MCPConfig:
        self.extra_seen = list(extra or [])
        return self.config.mcp


class FakeMemory:
    def __init__(self, *configs: MCPConfig) -> None:
        self.configs = list(configs)

    def get_microagent_mcp_tools(self) -> list[MCPConfig]:
        return self.configs


async def test_codeact_gets_the_tools_after_its_builtins(any_server: MCPTestServer) -> None:
    agent = CodeActAgent(agent_config(), registry())
    builtins = names(agent.tools)

    runtime = FakeRuntime(config_of(any_server))
    found = await add_mcp_tools_to_agent(agent, runtime, None)

    assert found is runtime.config.mcp
    assert names(agent.tools)[: len(builtins)] == builtins
    assert sorted(names(agent.tools)[len(builtins) :]) == TOOL_NAMES
    assert sorted(agent.mcp_tools) == TOOL_NAMES


async def test_readonly_agent_ignores_the_tools(sse_server: MCPTestServer) -> None:
    agent = ReadOnlyAgent(agent_config(), registry())
    before = names(agent.tools)

    await add_mcp_tools_to_agent(agent, FakeRuntime(config_of(sse_server)), None)

    assert names(agent.tools) == before
    assert agent.mcp_tools == {}


async def test_microagent_and_search_stdio_servers_go_to_the_runtime() -> None:
    repo = MCPStdioServerConfig(name="repo-tool", command="uvx", args=["repo-mcp"])
    runtime = FakeRuntime(MCPConfig(), search_api_key="tvly-abc")
    agent = CodeActAgent(agent_config(), registry())

    found = await add_mcp_tools_to_agent(
        agent, runtime, FakeMemory(MCPConfig(stdio_servers=[repo]))
    )

    assert found == MCPConfig()
    assert agent.mcp_tools == {}
    assert runtime.extra_seen is not None
    assert [s.name for s in runtime.extra_seen] == ["repo-tool", "tavily"]
    assert runtime.extra_seen[1].env == {"TAVILY_API_KEY": "tvly-abc"}


def test_no_memory_and_no_search_key_add_no_stdio_servers() -> None:
    assert extra_stdio_servers(None, None) == []
    assert extra_stdio_servers(FakeMemory(), "not-tavily") == []


async def test_a_runtime_that_fails_leaves_the_agent_without_mcp_tools() -> None:
    class BrokenRuntime(FakeRuntime):
        def get_mcp_config(self, extra: list[MCPStdioServerConfig] | None = None) -> MCPConfig:
            raise RuntimeError("sandbox gone")

    agent = CodeActAgent(agent_config(), registry())
    before = names(agent.tools)

    assert await add_mcp_tools_to_agent(agent, BrokenRuntime(MCPConfig()), None) == MCPConfig()
    assert names(agent.tools) == before


async def test_the_global_default_tools_microagent_gives_the_fetch_server() -> None:
    """microagents/default-tools.md (always active) hands `uvx mcp-server-fetch` to the
    runtime once, even when a repo microagent lists the same server again."""
    from openhands.events.stream import EventStream
    from openhands.memory.memory import Memory
    from openhands.storage.memory import InMemoryFileStore

    memory = Memory(EventStream("conv-1", InMemoryFileStore()), "conv-1", user_microagents_dir=None)
    fetch = MCPStdioServerConfig(name="fetch", command="uvx", args=["mcp-server-fetch"])
    assert MCPConfig(stdio_servers=[fetch]) in memory.get_microagent_mcp_tools()

    runtime = FakeRuntime(MCPConfig())
    agent = CodeActAgent(agent_config(), registry())
    doubled = FakeMemory(*memory.get_microagent_mcp_tools(), MCPConfig(stdio_servers=[fetch]))
    await add_mcp_tools_to_agent(agent, runtime, doubled)

    assert runtime.extra_seen == [fetch]


async def test_a_broken_server_entry_is_skipped_and_the_rest_kept(
    sse_server: MCPTestServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A stdio command that is not installed, or an entry that is not a server config at
    all, is reported and skipped; the reachable server still gives its tools."""
    from openhands.mcp.utils import create_mcp_clients

    missing = MCPStdioServerConfig(name="ghost", command="no-such-mcp-command-here")
    with caplog.at_level(logging.WARNING, logger="openhands"):
        clients = await create_mcp_clients(
            [MCPSSEServerConfig(url=sse_server.url, api_key=API_KEY), "not a config"],  # type: ignore[list-item]
            [],
            stdio_servers=[missing],
        )

    assert len(clients) == 1
    assert sorted(tool.name for tool in clients[0].tools) == TOOL_NAMES
    skipped = [r.getMessage() for r in caplog.records if "Skipping MCP server" in r.getMessage()]
    assert len(skipped) == 2
    assert any("no-such-mcp-command-here" in message for message in skipped)
