"""Talking to one remote MCP server over SSE or streamable HTTP.

Every operation opens its own short-lived MCP session and closes it again. The runtime
calls tools from the event stream's worker threads, each call in a fresh event loop, so a
session kept open between calls would be bound to a loop that no longer runs.

Every operation runs under one overall deadline (connect + handshake + request): a server
that accepts the TCP connection but never answers must not hang the conversation.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import httpx2
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, Tool

from openhands.core.config.mcp_config import (
    MCPSHTTPServerConfig,
    MCPSSEServerConfig,
    MCPStdioServerConfig,
)
from openhands.mcp.tool import MCPClientTool

Transport = Literal["sse", "shttp"]

# Seconds allowed to connect and list tools; a slow server at startup only loses its tools.
LIST_TIMEOUT = 20.0
# Seconds per tool call when the server config names none (SSE servers have no `timeout`).
DEFAULT_CALL_TIMEOUT = 60.0
# Header that tells the app's own MCP endpoint which conversation is calling (server-api §6.7).
CONVERSATION_HEADER = "X-OpenHands-ServerConversation-ID"


class MCPServerUnavailableError(Exception):
    """The server could not be reached, refused us, or broke off the session."""


class MCPTimeoutError(Exception):
    """The server did not finish the operation within its deadline."""


class MCPToolTimeoutError(MCPTimeoutError):
    """The server was reached and lists the tool, but the call itself ran out of time."""


class MCPToolCallError(Exception):
    """The server lists the tool but rejected the call with a protocol error."""


@dataclass(frozen=True)
class RemoteMCPServer:
    """Where one SSE or streamable-HTTP server lives and how to authenticate to it."""

    url: str
    transport: Transport
    api_key: str | None = None
    # Seconds per tool call; None lets the caller decide (SSE configs have no timeout).
    call_timeout: float | None = None

    @classmethod
    def from_config(cls, config: MCPSSEServerConfig | MCPSHTTPServerConfig) -> RemoteMCPServer:
        if isinstance(config, MCPSHTTPServerConfig):
            timeout = None if config.timeout is None else float(config.timeout)
            return cls(config.url, "shttp", config.api_key, timeout)
        return cls(config.url, "sse", config.api_key)

    def __str__(self) -> str:
        # Never includes the api key: this string goes into logs and observations.
        return f"{self.transport} MCP server {self.url}"


def request_headers(api_key: str | None, conversation_id: str | None = None) -> dict[str, str]:
    """Headers sent with every request to a server.

    The key goes out both as a Bearer token (what MCP servers expect) and as
    ``X-Session-API-Key`` (what the sandbox's own MCP proxy checks, runtime §3.6).
    """
    headers: dict[str, str] = {}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
        headers["X-Session-API-Key"] = api_key
    if conversation_id:
        headers[CONVERSATION_HEADER] = conversation_id
    return headers


class MCPClient:
    """Lists and calls the tools of one MCP server.

    Either construct it with a ``RemoteMCPServer`` or make an empty one and ``connect_http``
    / ``connect_stdio`` it; connecting lists the server's tools into ``tools`` and
    ``tool_map``. A stdio server is started afresh for every operation.
    """

    def __init__(
        self, server: RemoteMCPServer | None = None, conversation_id: str | None = None
    ) -> None:
        self.server = server
        self.conversation_id = conversation_id
        self.stdio_server: MCPStdioServerConfig | None = None
        self.tools: list[MCPClientTool] = []
        self.tool_map: dict[str, MCPClientTool] = {}

    @property
    def description(self) -> str:
        """Names the server for logs and errors, never with its key."""
        if self.stdio_server is not None:
            return f"stdio MCP server {self.stdio_server.name}"
        return str(self.server) if self.server is not None else "unconnected MCP client"

    async def connect_http(
        self,
        server: MCPSSEServerConfig | MCPSHTTPServerConfig,
        conversation_id: str | None = None,
        timeout: float = 30.0,
    ) -> None:
        """Use the SSE or streamable-HTTP ``server`` and list its tools."""
        self.server = RemoteMCPServer.from_config(server)
        self.stdio_server = None
        if conversation_id is not None:
            self.conversation_id = conversation_id
        self._set_tools(await self.list_tools(timeout))

    async def connect_stdio(self, server: MCPStdioServerConfig, timeout: float = 30.0) -> None:
        """Use the stdio ``server`` (started on this host) and list its tools."""
        self.server = None
        self.stdio_server = server
        self._set_tools(await self.list_tools(timeout))

    def _set_tools(self, tools: list[Tool]) -> None:
        self.tools = [MCPClientTool.from_mcp(tool) for tool in tools]
        self.tool_map = {tool.name: tool for tool in self.tools}

    async def list_tools(self, timeout: float = LIST_TIMEOUT) -> list[Tool]:
        async def run(client: Client) -> list[Tool]:
            return await _all_tools(client)

        return await self._with_session(run, timeout)

    async def call_tool(
        self, tool_name: str, args: dict[str, Any], timeout: float | None = None
    ) -> CallToolResult:
        """Call ``tool_name`` without looking at the listing first.

        Raises MCPToolTimeoutError when the call runs out of time and MCPToolCallError
        for a protocol error; a tool that fails gives a result with ``is_error``.
        """
        deadline = self.call_timeout(timeout)

        async def run(client: Client) -> CallToolResult:
            return await self._timed_call(client, tool_name, args, deadline)

        # The outer deadline covers connecting and a session that hangs while closing.
        return await self._with_session(run, LIST_TIMEOUT + deadline + 5)

    async def call_tool_if_listed(
        self, name: str, arguments: dict[str, Any], timeout: float | None = None
    ) -> CallToolResult | None:
        """Call ``name`` when this server lists it (one session); None when it does not.

        Connecting and listing get LIST_TIMEOUT; the call itself gets the call timeout and
        raises MCPToolTimeoutError when it runs out, so the caller can tell a slow tool
        from a server that is down.
        """
        deadline = self.call_timeout(timeout)

        async def run(client: Client) -> CallToolResult | None:
            with anyio.fail_after(LIST_TIMEOUT):
                listed = {tool.name for tool in await _all_tools(client)}
            if name not in listed:
                return None
            return await self._timed_call(client, name, arguments, deadline)

        return await self._with_session(run, LIST_TIMEOUT + deadline + 5)

    async def _timed_call(
        self, client: Client, name: str, arguments: dict[str, Any], deadline: float
    ) -> CallToolResult:
        try:
            with anyio.fail_after(deadline):
                return await client.call_tool(name, arguments)
        except TimeoutError as error:
            raise MCPToolTimeoutError(
                f"MCP tool '{name}' did not finish within {deadline:g} s on {self.description}"
            ) from error
        except MCPError as error:
            raise MCPToolCallError(
                f"MCP tool '{name}' failed on {self.description}: {error.message}"
            ) from error

    def call_timeout(self, requested: float | None) -> float:
        """The server's own call timeout wins; else the caller's; else the default."""
        if self.server is not None and self.server.call_timeout is not None:
            return self.server.call_timeout
        return requested if requested is not None else DEFAULT_CALL_TIMEOUT

    async def _with_session(self, operation: Any, timeout: float) -> Any:
        try:
            with anyio.fail_after(timeout):
                async with self._session() as client:
                    return await operation(client)
        except TimeoutError as error:
            raise MCPTimeoutError(
                f"{self.description} did not answer within {timeout:g} s"
            ) from error
        except Exception as error:
            # The transports run in task groups, so our own errors may come back wrapped.
            inner = _unwrap(error)
            if isinstance(inner, (MCPTimeoutError, MCPToolCallError)):
                raise inner from error
            raise MCPServerUnavailableError(
                f"{self.description}: {describe_error(error)}"
            ) from error

    @asynccontextmanager
    async def _session(self) -> AsyncIterator[Client]:
        async with AsyncExitStack() as stack:
            transport: Any
            if self.stdio_server is not None:
                params = StdioServerParameters(
                    command=self.stdio_server.command,
                    args=list(self.stdio_server.args),
                    env=dict(self.stdio_server.env) or None,
                )
                transport = stdio_client(params)
                mode = "legacy"
            elif self.server is None:
                raise MCPServerUnavailableError("the MCP client is not connected to a server")
            elif self.server.transport == "sse":
                headers = request_headers(self.server.api_key, self.conversation_id)
                transport = sse_client(self.server.url, headers=headers)
                # SSE is the handshake-era transport: skip the `server/discover` probe.
                mode = "legacy"
            else:
                headers = request_headers(self.server.api_key, self.conversation_id)
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0))
                )
                transport = streamable_http_client(self.server.url, http_client=http)
                mode = "auto"
            client = await stack.enter_async_context(Client(transport, mode=mode, cache=None))
            yield client


async def _all_tools(client: Client) -> list[Tool]:
    tools: list[Tool] = []
    cursor: str | None = None
    # A server whose cursor never ends must not loop forever; 100 pages is plenty.
    for _ in range(100):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


def _unwrap(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def describe_error(error: BaseException) -> str:
    """A one-line reason, looking inside the exception groups the transports raise."""
    error = _unwrap(error)
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
