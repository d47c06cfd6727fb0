"""MCPClient against real MCP servers over SSE and streamable HTTP."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from openhands.core.config import MCPConfig, MCPSHTTPServerConfig, MCPSSEServerConfig
from openhands.mcp.client import (
    MCPClient,
    MCPServerUnavailableError,
    MCPTimeoutError,
    MCPToolTimeoutError,
    RemoteMCPServer,
    request_headers,
)
from openhands.mcp.tools import result_to_json, tool_to_schema
from tests.support.mcp_server import TEST_API_KEY as API_KEY
from tests.support.mcp_server import MCPTestServer, free_port


def client_for(server: MCPTestServer, api_key: str | None = API_KEY, **kwargs: object) -> MCPClient:
    transport = "sse" if server.transport == "sse" else "shttp"
    return MCPClient(RemoteMCPServer(server.url, transport, api_key), **kwargs)  # type: ignore[arg-type]


async def test_lists_the_tools_with_their_input_schemas(any_server: MCPTestServer) -> None:
    tools = await client_for(any_server).list_tools()

    assert sorted(tool.name for tool in tools) == ["add", "explode", "nap", "whoami"]
    add = tool_to_schema(next(tool for tool in tools if tool.name == "add"))
    assert add["type"] == "function"
    assert add["function"]["name"] == "add"
    assert add["function"]["description"] == "Add two integers."
    parameters = add["function"]["parameters"]
    assert parameters["type"] == "object"
    assert sorted(parameters["required"]) == ["a", "b"]
    assert parameters["properties"]["a"]["type"] == "integer"


async def test_calls_a_tool_and_the_result_becomes_wire_json(any_server: MCPTestServer) -> None:
    result = await client_for(any_server).call_tool_if_listed("add", {"a": 2, "b": 40})

    assert result is not None
    data = json.loads(result_to_json(result))
    assert data["isError"] is False
    assert data["content"][0]["type"] == "text"
    assert data["content"][0]["text"] == "42"
    assert data["structuredContent"] == {"result": 42}
    assert "resultType" not in data


async def test_a_failing_tool_is_an_error_result_not_an_exception(
    any_server: MCPTestServer,
) -> None:
    result = await client_for(any_server).call_tool_if_listed("explode", {"reason": "x"})

    assert result is not None
    assert result.is_error is True
    assert "explode" in json.loads(result_to_json(result))["content"][0]["text"]


async def test_an_unlisted_tool_is_not_called(any_server: MCPTestServer) -> None:
    assert await client_for(any_server).call_tool_if_listed("subtract", {"a": 1}) is None


async def test_sends_the_key_as_bearer_and_the_conversation_id(
    any_server: MCPTestServer,
) -> None:
    result = await client_for(any_server, conversation_id="conv-7").call_tool_if_listed(
        "whoami", {}
    )

    assert result is not None
    assert result.structured_content == {
        "authorization": f"Bearer {API_KEY}",
        "conversation": "conv-7",
    }


async def test_a_wrong_key_makes_the_server_unavailable(any_server: MCPTestServer) -> None:
    with pytest.raises(MCPServerUnavailableError) as caught:
        await client_for(any_server, api_key="wrong").list_tools()
    assert any_server.url in str(caught.value)
    assert "wrong" not in str(caught.value)  # the key never shows up in messages


@pytest.mark.parametrize("transport", ["sse", "shttp"])
async def test_a_closed_port_fails_fast_with_the_url(transport: str) -> None:
    url = f"http://127.0.0.1:{free_port()}/whatever"
    with pytest.raises(MCPServerUnavailableError) as caught:
        await MCPClient(RemoteMCPServer(url, transport)).list_tools()  # type: ignore[arg-type]
    assert url in str(caught.value)
    # Refused, not timed out: the failure is the connect itself (no waiting involved).
    assert "ConnectError" in str(caught.value)


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield int(listener.getsockname()[1])


@pytest.mark.parametrize("transport", ["sse", "shttp"])
async def test_a_server_that_never_answers_times_out(transport: str, silent_port: int) -> None:
    server = RemoteMCPServer(f"http://127.0.0.1:{silent_port}/sse", transport)  # type: ignore[arg-type]
    with pytest.raises(MCPTimeoutError) as caught:
        await MCPClient(server).list_tools(timeout=1.0)
    # The caller's 1 s timeout is the one that fired (the message names it).
    assert "did not answer within 1 s" in str(caught.value)


async def test_a_slow_tool_call_times_out_as_a_tool_timeout(any_server: MCPTestServer) -> None:
    with pytest.raises(MCPToolTimeoutError) as caught:
        await client_for(any_server).call_tool_if_listed("nap", {"seconds": 30}, timeout=1.0)
    # The call's 1 s timeout fired, not the 30 s nap's end (the message names the limit).
    assert "MCP tool 'nap' did not finish within 1 s" in str(caught.value)


def test_the_shttp_config_timeout_wins_over_the_callers() -> None:
    shttp = RemoteMCPServer.from_config(MCPSHTTPServerConfig(url="http://h/mcp", timeout=7))
    sse = RemoteMCPServer.from_config(MCPSSEServerConfig(url="http://h/sse"))

    assert (shttp.transport, shttp.call_timeout) == ("shttp", 7.0)
    assert MCPClient(shttp).call_timeout(120) == 7.0
    assert (sse.transport, sse.call_timeout) == ("sse", None)
    assert MCPClient(sse).call_timeout(120) == 120
    assert MCPClient(sse).call_timeout(None) == 60


def test_headers_without_a_key_carry_no_authorization() -> None:
    assert request_headers(None) == {}
    assert request_headers("k", "c") == {
        "Authorization": "Bearer k",
        "X-Session-API-Key": "k",
        "X-OpenHands-ServerConversation-ID": "c",
    }
    assert "k" not in str(RemoteMCPServer("http://h/sse", "sse", "k"))


async def test_an_shttp_server_without_a_timeout_loads_and_is_called(
    shttp_server: MCPTestServer,
) -> None:
    # `timeout: null` (settings JSON, API) means "no limit of the server's own".
    config = MCPConfig.model_validate(
        {"shttp_servers": [{"url": shttp_server.url, "api_key": API_KEY, "timeout": None}]}
    )
    (server_config,) = config.shttp_servers
    assert server_config.timeout is None
    server = RemoteMCPServer.from_config(server_config)
    assert server.call_timeout is None
    client = MCPClient(server)
    assert client.call_timeout(None) == 60 and client.call_timeout(5) == 5
    result = await client.call_tool_if_listed("add", {"a": 1, "b": 2})
    assert result is not None and json.loads(result_to_json(result))["content"][0]["text"] == "3"
