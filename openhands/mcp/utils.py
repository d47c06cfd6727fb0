"""MCP tools for the agent: find them at startup, call them when the agent asks.

A conversation's runtime speaks only to SSE and streamable-HTTP servers from here. Stdio
servers run inside the sandbox behind its MCP proxy (runtime.md §3.6), which the runtime's
``get_mcp_config`` turns into one more SSE server once the sandbox serves it; only a
runtime without a sandbox asks ``fetch_mcp_tools_from_config`` to start them here.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from typing import Any

from openhands.core.config.mcp_config import (
    MCPConfig,
    MCPSHTTPServerConfig,
    MCPSSEServerConfig,
    MCPStdioServerConfig,
    search_engine_stdio_server,
)
from openhands.core.logger import openhands_logger as logger
from openhands.events.action.mcp import MCPAction
from openhands.events.observation import ErrorObservation, MCPObservation, Observation
from openhands.mcp.client import (
    MCPClient,
    MCPServerUnavailableError,
    MCPTimeoutError,
    MCPToolCallError,
    MCPToolTimeoutError,
    RemoteMCPServer,
    describe_error,
)
from openhands.mcp.error_collector import mcp_error_collector
from openhands.mcp.tools import result_to_json


def remote_servers(mcp_config: MCPConfig) -> list[RemoteMCPServer]:
    """The servers this process talks to directly: SSE first, then streamable HTTP."""
    return [
        *(RemoteMCPServer.from_config(server) for server in mcp_config.sse_servers),
        *(RemoteMCPServer.from_config(server) for server in mcp_config.shttp_servers),
    ]


async def create_mcp_clients(
    sse_servers: list[MCPSSEServerConfig],
    shttp_servers: list[MCPSHTTPServerConfig],
    conversation_id: str | None = None,
    stdio_servers: list[MCPStdioServerConfig] | None = None,
) -> list[MCPClient]:
    """One connected client per server, in the given order (SSE, HTTP, then stdio).

    Servers are connected in parallel. One that cannot be reached, or whose entry cannot
    even be used (a stdio command that is not installed, a malformed entry), is logged,
    recorded in ``mcp_error_collector`` and skipped: a broken MCP server never stops a
    conversation, and the others still give their tools.
    """
    if sys.platform == "win32":
        logger.info("MCP is not available on Windows; no MCP clients are created")
        return []
    servers: list[MCPSSEServerConfig | MCPSHTTPServerConfig | MCPStdioServerConfig] = [
        *sse_servers,
        *shttp_servers,
        *(stdio_servers or []),
    ]
    if not servers:
        return []
    outcomes = await asyncio.gather(
        *(_connect(server, conversation_id) for server in servers), return_exceptions=True
    )
    clients: list[MCPClient] = []
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            if not isinstance(outcome, Exception):
                raise outcome  # cancellation and the like are not a server's failure
            logger.warning("MCP client setup failed: %s", describe_error(outcome))
        elif outcome is not None:
            clients.append(outcome)
    return clients


async def _connect(
    server: MCPSSEServerConfig | MCPSHTTPServerConfig | MCPStdioServerConfig,
    conversation_id: str | None,
) -> MCPClient | None:
    """A client connected to ``server``, or None after recording why it could not be."""
    kind, name = _server_kind_and_name(server)
    try:
        client = MCPClient()
        if isinstance(server, MCPStdioServerConfig):
            if shutil.which(server.command) is None:
                raise MCPServerUnavailableError(
                    f'command "{server.command}" not found; install it or remove the '
                    f'"{server.name}" server from the MCP configuration'
                )
            await client.connect_stdio(server)
        else:
            await client.connect_http(server, conversation_id=conversation_id)
    except Exception as error:
        # Our own errors already name the server; anything else gets its type.
        known = (MCPServerUnavailableError, MCPTimeoutError)
        message = str(error) if isinstance(error, known) else describe_error(error)
        logger.warning("Skipping MCP server %s: %s", name, message)
        mcp_error_collector.add_error(
            server_name=name,
            server_type=kind,
            error_message=f"Failed to connect to {kind} MCP server {name}",
            exception_details=message,
        )
        return None
    logger.info("%s offers %d MCP tools", client.description, len(client.tools))
    return client


def _server_kind_and_name(server: object) -> tuple[str, str]:
    """How the error collector names a server; never fails, even for a malformed entry."""
    if isinstance(server, MCPStdioServerConfig):
        return "stdio", server.name
    kind = "shttp" if isinstance(server, MCPSHTTPServerConfig) else "sse"
    url = getattr(server, "url", server)
    return kind, str(url)


def convert_mcp_clients_to_tools(mcp_clients: list[MCPClient] | None) -> list[dict[str, Any]]:
    """The OpenAI function schema of every tool of every client, in client order."""
    if mcp_clients is None:
        return []
    return [tool.to_param() for client in mcp_clients for tool in client.tools]


async def fetch_mcp_tools_from_config(
    mcp_config: MCPConfig, conversation_id: str | None = None, use_stdio: bool = False
) -> list[dict[str, Any]]:
    """The tool schemas of every reachable server, for the LLM; ``[]`` on any error.

    Stdio servers are started on this host only with ``use_stdio`` (elsewhere the sandbox
    runs them). When two servers offer the same tool name, the first server in config
    order keeps it (``call_tool_mcp`` sends calls there too).
    """
    try:
        clients = await create_mcp_clients(
            mcp_config.sse_servers,
            mcp_config.shttp_servers,
            conversation_id,
            mcp_config.stdio_servers if use_stdio else None,
        )
        tools = convert_mcp_clients_to_tools(clients)
    except Exception:
        logger.exception("Could not fetch the MCP tools")
        return []
    schemas: list[dict[str, Any]] = []
    seen: set[str] = set()
    for tool in tools:
        name = tool["function"]["name"]
        if name in seen:
            logger.warning("MCP tool %r is shadowed by an earlier server", name)
            continue
        seen.add(name)
        schemas.append(tool)
    return schemas


async def call_tool_mcp(mcp_clients: list[MCPClient], action: MCPAction) -> Observation:
    """Call ``action``'s tool on the first client that lists it.

    The result, also of a tool that failed, becomes an MCPObservation with the result's
    JSON. A call that times out or fails in the protocol gives an MCPObservation whose
    JSON says ``isError`` and why. Raises ValueError when no client offers the tool.
    """
    if sys.platform == "win32":
        return ErrorObservation("MCP functionality is not available on Windows")
    if not mcp_clients:
        raise ValueError("No MCP clients found")
    client = next(
        (c for c in mcp_clients if any(tool.name == action.name for tool in c.tools)), None
    )
    if client is None:
        raise ValueError(f"No matching MCP agent found for tool name: {action.name}")
    try:
        if action.timeout is None:
            result = await client.call_tool(action.name, dict(action.arguments))
        else:
            result = await client.call_tool(action.name, dict(action.arguments), action.timeout)
    except MCPToolTimeoutError:
        seconds = client.call_timeout(action.timeout)
        return _error_observation(
            action, f'Tool "{action.name}" timed out after {seconds:g} seconds'
        )
    except (MCPToolCallError, MCPServerUnavailableError, MCPTimeoutError) as error:
        return _error_observation(action, str(error))
    return MCPObservation(
        content=result_to_json(result), name=action.name, arguments=dict(action.arguments)
    )


def _error_observation(action: MCPAction, error: str) -> MCPObservation:
    content = json.dumps({"isError": True, "error": error, "content": []})
    return MCPObservation(content=content, name=action.name, arguments=dict(action.arguments))


async def call_tool_from_config(
    mcp_config: MCPConfig, action: MCPAction, conversation_id: str | None = None
) -> Observation:
    """``call_tool_mcp`` on clients for the SSE and HTTP servers of ``mcp_config``.

    What the runtime runs for an MCPAction: never raises for MCP trouble. No server, or
    no reachable server offering the tool, gives an ErrorObservation that says so.
    """
    servers: list[MCPSSEServerConfig | MCPSHTTPServerConfig] = [
        *mcp_config.sse_servers,
        *mcp_config.shttp_servers,
    ]
    if not servers:
        return ErrorObservation(
            f"MCP tool '{action.name}' cannot be called: no SSE or streamable-HTTP MCP "
            "servers are configured."
        )
    clients = await create_mcp_clients(
        mcp_config.sse_servers, mcp_config.shttp_servers, conversation_id
    )
    try:
        return await call_tool_mcp(clients, action)
    except ValueError:
        pass
    message = f"MCP tool '{action.name}' is not offered by any reachable MCP server."
    reached = {client.server.url for client in clients if client.server is not None}
    unreachable = [server.url for server in servers if server.url not in reached]
    if unreachable:
        message += " Unreachable: " + "; ".join(unreachable)
    return ErrorObservation(message)


def extra_stdio_servers(memory: Any, search_api_key: str | None) -> list[MCPStdioServerConfig]:
    """Stdio servers added to the configured ones: the microagents' (e.g. the global
    ``default-tools`` one) and the search engine's, each once."""
    servers: list[MCPStdioServerConfig] = []
    get_microagent_tools = getattr(memory, "get_microagent_mcp_tools", None)
    microagent_configs: list[MCPConfig] = (
        list(get_microagent_tools() or []) if get_microagent_tools else []
    )
    for config in microagent_configs:
        if config.sse_servers or config.shttp_servers:
            # A microagent may only start servers in the sandbox, not point at remote ones.
            logger.warning("A microagent's MCP config lists remote servers; they are ignored")
        for server in config.stdio_servers:
            if server not in servers:
                servers.append(server)
                logger.info("MCP stdio server %r added by a microagent", server.name)
    search = search_engine_stdio_server(search_api_key)
    if search is not None and search not in servers:
        servers.append(search)
    return servers


async def add_mcp_tools_to_agent(agent: Any, runtime: Any, memory: Any = None) -> MCPConfig:
    """Find the MCP tools of this conversation, give them to the agent, return the config.

    The microagents' stdio servers (and the search engine's) are handed to
    ``runtime.get_mcp_config``, which decides the final server list (a sandbox runtime
    adds its MCP proxy for stdio servers); only a runtime without a sandbox (``cli``) has
    stdio servers started here. When the runtime cannot give a config the agent keeps its
    built-in tools only and the returned config is empty.
    """
    if sys.platform == "win32":
        logger.info("MCP is not available on Windows; the agent gets no MCP tools")
        agent.set_mcp_tools([])
        return MCPConfig()
    config = getattr(runtime, "config", None)
    search_key = getattr(config, "search_api_key", None)
    extra = extra_stdio_servers(
        memory, search_key.get_secret_value() if search_key is not None else None
    )
    try:
        mcp_config: MCPConfig = await asyncio.to_thread(runtime.get_mcp_config, extra)
    except Exception:
        # MCP is an extra: the conversation goes on with the built-in tools.
        logger.exception("Could not load MCP tools; going on without them")
        return MCPConfig()
    use_stdio = getattr(config, "runtime", None) == "cli"
    tools = await fetch_mcp_tools_from_config(
        mcp_config, getattr(runtime, "sid", None), use_stdio=use_stdio
    )
    agent.set_mcp_tools(tools)
    names = [tool["function"]["name"] for tool in tools]
    logger.info(
        "Gave %d MCP tools to %s: %s", len(tools), getattr(agent, "name", "the agent"), names
    )
    return mcp_config
