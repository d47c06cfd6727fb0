"""The reference's public MCP API (python-api.md §8), against real MCP servers."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import openhands.mcp as mcp_package
from openhands.core.config import (
    MCPConfig,
    MCPSHTTPServerConfig,
    MCPSSEServerConfig,
    MCPStdioServerConfig,
)
from openhands.events.action import MCPAction
from openhands.events.observation import ErrorObservation, MCPObservation
from openhands.mcp import client as client_module
from openhands.mcp import error_collector as collector_module
from openhands.mcp import tool as tool_module
from openhands.mcp import utils as utils_module
from openhands.mcp.client import MCPClient
from openhands.mcp.error_collector import MCPError, MCPErrorCollector, mcp_error_collector
from openhands.mcp.tool import MCPClientTool
from openhands.mcp.utils import (
    call_tool_mcp,
    convert_mcp_clients_to_tools,
    create_mcp_clients,
    fetch_mcp_tools_from_config,
)
from tests.support.mcp_server import TEST_API_KEY as API_KEY
from tests.support.mcp_server import MCPTestServer, free_port, stdio_command

TOOL_NAMES = ["add", "explode", "nap", "whoami"]


@pytest.fixture
def collector() -> Iterator[MCPErrorCollector]:
    """The process-wide collector, empty and collecting, restored afterwards."""
    mcp_error_collector.clear_errors()
    mcp_error_collector.enable_collection()
    yield mcp_error_collector
    mcp_error_collector.clear_errors()
    mcp_error_collector.enable_collection()


def stdio_server() -> MCPStdioServerConfig:
    return MCPStdioServerConfig.model_validate(stdio_command())


def names(tools: list[dict[str, Any]]) -> list[str]:
    return [tool["function"]["name"] for tool in tools]


# --- package exports ---------------------------------------------------------------------------


def test_the_package_exports_the_same_objects() -> None:
    assert mcp_package.MCPClient is client_module.MCPClient
    assert mcp_package.MCPClientTool is tool_module.MCPClientTool
    assert mcp_package.mcp_error_collector is collector_module.mcp_error_collector
    for name in (
        "convert_mcp_clients_to_tools",
        "create_mcp_clients",
        "fetch_mcp_tools_from_config",
        "call_tool_mcp",
        "add_mcp_tools_to_agent",
    ):
        assert getattr(mcp_package, name) is getattr(utils_module, name)
        assert name in mcp_package.__all__


# --- error collector (checklist 22) ------------------------------------------------------------


def test_a_new_collector_collects_and_gives_copies() -> None:
    collector = MCPErrorCollector()
    assert not collector.has_errors() and collector.get_error_count() == 0

    collector.add_error("http://a/sse", "sse", "could not connect", "ConnectError: refused")
    collector.add_error("fs", "stdio", "exited")

    errors = collector.get_errors()
    assert [(e.server_name, e.server_type, e.error_message) for e in errors] == [
        ("http://a/sse", "sse", "could not connect"),
        ("fs", "stdio", "exited"),
    ]
    assert errors[0].exception_details == "ConnectError: refused"
    assert errors[1].exception_details is None
    assert isinstance(errors[0], MCPError) and errors[0].timestamp > 0
    errors.clear()
    assert collector.get_error_count() == 2 and collector.has_errors()


def test_disabled_collection_ignores_errors_until_enabled() -> None:
    collector = MCPErrorCollector()
    collector.disable_collection()
    collector.add_error("x", "sse", "ignored")
    assert collector.get_errors() == []

    collector.enable_collection()
    collector.add_error("x", "sse", "kept")
    assert [e.error_message for e in collector.get_errors()] == ["kept"]
    collector.clear_errors()
    assert not collector.has_errors()


def test_the_collector_is_thread_safe() -> None:
    collector = MCPErrorCollector()
    start = threading.Barrier(8)

    def add_many(worker: int) -> None:
        start.wait()
        for i in range(500):
            collector.add_error(f"s{worker}", "shttp", str(i))
            collector.get_errors()

    threads = [threading.Thread(target=add_many, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert collector.get_error_count() == 8 * 500


def test_the_error_is_a_dataclass_with_the_reference_fields() -> None:
    error = MCPError(1.5, "srv", "sse", "msg")
    assert (error.timestamp, error.server_name, error.server_type) == (1.5, "srv", "sse")
    assert (error.error_message, error.exception_details) == ("msg", None)


# --- MCPClientTool -------------------------------------------------------------------------------


def test_client_tool_to_param_is_the_openai_function_form() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    tool = MCPClientTool(name="search", description=None, inputSchema=schema)
    assert tool.to_param() == {
        "type": "function",
        "function": {"name": "search", "description": "", "parameters": schema},
    }


# --- create_mcp_clients / convert (checklist 21) ----------------------------------------------


async def test_no_servers_give_no_clients() -> None:
    assert await create_mcp_clients([], []) == []
    assert await create_mcp_clients([], [], "conv", stdio_servers=[]) == []


def test_no_clients_give_no_tools() -> None:
    assert convert_mcp_clients_to_tools(None) == []
    assert convert_mcp_clients_to_tools([]) == []


async def test_clients_connect_and_a_failing_server_is_recorded_and_skipped(
    sse_server: MCPTestServer,
    shttp_server: MCPTestServer,
    collector: MCPErrorCollector,
    caplog: pytest.LogCaptureFixture,
) -> None:
    dead = f"http://127.0.0.1:{free_port()}/sse"
    sse = [
        MCPSSEServerConfig(url=dead),
        MCPSSEServerConfig(url=sse_server.url, api_key=API_KEY),
    ]
    shttp = [MCPSHTTPServerConfig(url=shttp_server.url, api_key=API_KEY)]

    clients = await create_mcp_clients(sse, shttp, conversation_id="conv-9")

    assert [c.server.url for c in clients if c.server] == [sse_server.url, shttp_server.url]
    for client in clients:
        assert sorted(tool.name for tool in client.tools) == TOOL_NAMES
        assert set(client.tool_map) == set(TOOL_NAMES)
        assert client.tool_map["add"].description == "Add two integers."
    (error,) = collector.get_errors()
    assert (error.server_name, error.server_type) == (dead, "sse")
    assert error.exception_details and "ConnectError" in error.exception_details
    assert any(dead in r.getMessage() for r in caplog.records if r.levelname == "WARNING")

    tools = convert_mcp_clients_to_tools(clients)
    assert sorted(names(tools)) == sorted(TOOL_NAMES * 2)
    add = next(t for t in tools if t["function"]["name"] == "add")
    assert sorted(add["function"]["parameters"]["required"]) == ["a", "b"]

    # The conversation id given at connect time goes out with every request.
    whoami = await call_tool_mcp(clients, MCPAction(name="whoami"))
    assert isinstance(whoami, MCPObservation)
    assert "conv-9" in whoami.content


async def test_a_stdio_server_connects_and_is_called() -> None:
    client = MCPClient()
    await client.connect_stdio(stdio_server())

    assert sorted(client.tool_map) == TOOL_NAMES
    result = await client.call_tool("add", {"a": 40, "b": 2})
    assert result.structured_content == {"result": 42}


async def test_a_stdio_server_that_cannot_start_is_recorded(
    collector: MCPErrorCollector,
) -> None:
    broken = MCPStdioServerConfig(name="broken", command="/nonexistent/mcp-server")
    assert await create_mcp_clients([], [], stdio_servers=[broken]) == []
    assert [(e.server_name, e.server_type) for e in collector.get_errors()] == [("broken", "stdio")]


async def test_connect_http_records_the_server_and_its_tools(any_server: MCPTestServer) -> None:
    config: MCPSSEServerConfig | MCPSHTTPServerConfig
    if any_server.transport == "sse":
        config = MCPSSEServerConfig(url=any_server.url, api_key=API_KEY)
    else:
        config = MCPSHTTPServerConfig(url=any_server.url, api_key=API_KEY)
    client = MCPClient()
    await client.connect_http(config, conversation_id="c1", timeout=10.0)

    assert client.server is not None and client.server.url == any_server.url
    assert client.conversation_id == "c1"
    assert [t.name for t in client.tools] == list(client.tool_map)


# --- fetch_mcp_tools_from_config ---------------------------------------------------------------


async def test_fetch_starts_stdio_servers_only_when_asked(sse_server: MCPTestServer) -> None:
    config = MCPConfig(
        sse_servers=[MCPSSEServerConfig(url=sse_server.url, api_key=API_KEY)],
        stdio_servers=[stdio_server()],
    )
    only_sse = await fetch_mcp_tools_from_config(config)
    assert sorted(names(only_sse)) == TOOL_NAMES

    # With stdio the same tool names come twice; the first server keeps them.
    with_stdio = await fetch_mcp_tools_from_config(config, "conv", use_stdio=True)
    assert sorted(names(with_stdio)) == TOOL_NAMES

    stdio_only = MCPConfig(stdio_servers=[stdio_server()])
    assert await fetch_mcp_tools_from_config(stdio_only) == []
    assert sorted(names(await fetch_mcp_tools_from_config(stdio_only, use_stdio=True))) == (
        TOOL_NAMES
    )


# --- call_tool_mcp -----------------------------------------------------------------------------


async def test_call_without_clients_raises() -> None:
    with pytest.raises(ValueError, match=r"^No MCP clients found$"):
        await call_tool_mcp([], MCPAction(name="add"))


async def test_call_of_a_tool_no_client_offers_raises(sse_server: MCPTestServer) -> None:
    clients = await create_mcp_clients(
        [MCPSSEServerConfig(url=sse_server.url, api_key=API_KEY)], []
    )
    with pytest.raises(ValueError) as caught:
        await call_tool_mcp(clients, MCPAction(name="subtract"))
    assert str(caught.value) == "No matching MCP agent found for tool name: subtract"


async def test_call_gives_the_result_json(any_server: MCPTestServer) -> None:
    client = MCPClient()
    if any_server.transport == "sse":
        await client.connect_http(MCPSSEServerConfig(url=any_server.url, api_key=API_KEY))
    else:
        await client.connect_http(MCPSHTTPServerConfig(url=any_server.url, api_key=API_KEY))

    observation = await call_tool_mcp([client], MCPAction(name="add", arguments={"a": 1, "b": 2}))

    assert isinstance(observation, MCPObservation)
    assert (observation.name, observation.arguments) == ("add", {"a": 1, "b": 2})
    result = json.loads(observation.content)
    assert result["isError"] is False and result["content"][0]["text"] == "3"


async def test_a_timeout_is_an_error_result(shttp_server: MCPTestServer) -> None:
    # The streamable-HTTP config's own timeout is the limit.
    config = MCPSHTTPServerConfig(url=shttp_server.url, api_key=API_KEY, timeout=1)
    clients = await create_mcp_clients([], [config])

    action = MCPAction(name="nap", arguments={"seconds": 30})
    observation = await call_tool_mcp(clients, action)

    assert isinstance(observation, MCPObservation)
    assert json.loads(observation.content) == {
        "isError": True,
        "error": 'Tool "nap" timed out after 1 seconds',
        "content": [],
    }


async def test_a_server_gone_after_connecting_is_an_error_result() -> None:
    with MCPTestServer("sse", api_key=API_KEY) as server:
        clients = await create_mcp_clients(
            [MCPSSEServerConfig(url=server.url, api_key=API_KEY)], []
        )
    observation = await call_tool_mcp(clients, MCPAction(name="add", arguments={"a": 1, "b": 1}))

    assert isinstance(observation, MCPObservation)
    content = json.loads(observation.content)
    assert content["isError"] is True and content["content"] == []
    assert server.url in content["error"]


async def test_on_windows_mcp_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    assert await create_mcp_clients([MCPSSEServerConfig(url="http://127.0.0.1:1/sse")], []) == []
    observation = await call_tool_mcp([], MCPAction(name="add"))
    assert isinstance(observation, ErrorObservation)
    assert observation.content == "MCP functionality is not available on Windows"


class _ListedTool:
    def __init__(self, name: str) -> None:
        self.name = name


class _DuckClient:
    """Anything with ``tools`` (objects with a ``name``) and an async ``call_tool``."""

    def __init__(self, *names: str) -> None:
        self.tools = [_ListedTool(n) for n in names]
        self.calls: list[tuple[Any, ...]] = []

    async def call_tool(self, *args: Any) -> Any:
        self.calls.append(args)
        return MCPConfig()  # any pydantic model will do


async def test_call_picks_the_client_by_its_listed_tools_and_passes_name_and_args() -> None:
    other, wanted = _DuckClient("a"), _DuckClient("b", "c")
    obs = await call_tool_mcp(
        [other, wanted],  # type: ignore[list-item]
        MCPAction(name="c", arguments={"x": 1}),
    )
    assert isinstance(obs, MCPObservation)
    assert json.loads(obs.content) == MCPConfig().model_dump(mode="json")
    assert other.calls == []
    # No action timeout: exactly (name, arguments), as the reference calls it.
    assert wanted.calls == [("c", {"x": 1})]
