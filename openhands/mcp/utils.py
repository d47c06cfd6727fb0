"""MCP tools for the agent: find them at startup, call them when the agent asks.

Only SSE and streamable-HTTP servers are spoken to from here. Stdio servers run inside
the sandbox behind its MCP proxy (runtime.md §3.6), which the runtime's
``get_mcp_config`` turns into one more SSE server once the sandbox serves it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcp_types import CallToolResult, Tool

from openhands.core.config.mcp_config import (
    MCPConfig,
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
)
from openhands.mcp.tools import result_to_json, tool_to_schema


def remote_servers(mcp_config: MCPConfig) -> list[RemoteMCPServer]:
    """The servers this process talks to directly: SSE first, then streamable HTTP."""
    return [
        *(RemoteMCPServer.from_config(server) for server in mcp_config.sse_servers),
        *(RemoteMCPServer.from_config(server) for server in mcp_config.shttp_servers),
    ]


async def fetch_mcp_tools_from_config(
    mcp_config: MCPConfig, conversation_id: str | None = None
) -> list[dict[str, Any]]:
    """The tool schemas of every reachable server, for the LLM.

    Servers are asked in parallel. One that cannot be reached is logged and skipped: a
    broken MCP server must never stop a conversation. When two servers offer the same
    tool name, the first server in config order keeps it (calls go there too).
    """
    servers = remote_servers(mcp_config)
    if not servers:
        return []
    listings = await asyncio.gather(
        *(_list_or_skip(MCPClient(server, conversation_id)) for server in servers)
    )
    schemas: list[dict[str, Any]] = []
    seen: set[str] = set()
    for server, tools in zip(servers, listings, strict=True):
        for tool in tools:
            if tool.name in seen:
                logger.warning(
                    "MCP tool %r of %s is shadowed by an earlier server", tool.name, server
                )
                continue
            seen.add(tool.name)
            schemas.append(tool_to_schema(tool))
    return schemas


async def _list_or_skip(client: MCPClient) -> list[Tool]:
    try:
        tools = await client.list_tools()
    except (MCPServerUnavailableError, MCPTimeoutError) as error:
        logger.warning("Skipping MCP server: %s", error)
        return []
    logger.info("%s offers %d MCP tools", client.server, len(tools))
    return tools


async def call_tool_mcp(
    mcp_config: MCPConfig,
    action: MCPAction,
    conversation_id: str | None = None,
    timeout: float | None = None,
) -> Observation:
    """Run ``action`` on the first server that lists its tool.

    Returns an MCPObservation holding the result's JSON (also when the tool itself failed:
    the result then says ``isError`` and the model reads why), or an ErrorObservation
    when no server offers the tool, the server cannot be reached, or the call times out.
    ``timeout`` applies to servers whose config sets none (SSE servers).
    """
    servers = remote_servers(mcp_config)
    if not servers:
        return ErrorObservation(
            f"MCP tool '{action.name}' cannot be called: no SSE or streamable-HTTP MCP "
            "servers are configured."
        )
    unreachable: list[str] = []
    for server in servers:
        client = MCPClient(server, conversation_id)
        try:
            result = await client.call_tool_if_listed(action.name, action.arguments, timeout)
        except (MCPToolTimeoutError, MCPToolCallError) as error:
            return ErrorObservation(str(error))
        except (MCPServerUnavailableError, MCPTimeoutError) as error:
            logger.warning("MCP call of %r could not use a server: %s", action.name, error)
            unreachable.append(str(error))
            continue
        if result is not None:
            return _observation(action, result)
    message = f"MCP tool '{action.name}' is not offered by any reachable MCP server."
    if unreachable:
        message += " Unreachable: " + "; ".join(unreachable)
    return ErrorObservation(message)


def _observation(action: MCPAction, result: CallToolResult) -> MCPObservation:
    return MCPObservation(
        content=result_to_json(result), name=action.name, arguments=dict(action.arguments)
    )


def extra_stdio_servers(memory: Any, search_api_key: str | None) -> list[MCPStdioServerConfig]:
    """Stdio servers added to the configured ones: repo microagents' and the search engine."""
    servers: list[MCPStdioServerConfig] = []
    get_microagent_tools = getattr(memory, "get_microagent_mcp_tools", None)
    if get_microagent_tools is not None:
        for config in get_microagent_tools():
            servers.extend(config.stdio_servers)
    search = search_engine_stdio_server(search_api_key)
    if search is not None:
        servers.append(search)
    return servers


async def add_mcp_tools_to_agent(
    agent: Any, runtime: Any, memory: Any = None
) -> list[dict[str, Any]]:
    """Find the MCP tools of this conversation and give them to the agent.

    The runtime decides the final server list (it adds its sandbox proxy for stdio
    servers). Returns the tool schemas found; the agent may skip some (built-in names win).
    """
    search_key = getattr(runtime.config, "search_api_key", None)
    extra = extra_stdio_servers(
        memory, search_key.get_secret_value() if search_key is not None else None
    )
    try:
        mcp_config = await asyncio.to_thread(runtime.get_mcp_config, extra)
        tools = await fetch_mcp_tools_from_config(mcp_config, conversation_id=runtime.sid)
    except Exception:
        # MCP is an extra: the conversation goes on with the built-in tools.
        logger.exception("Could not load MCP tools; going on without them")
        return []
    agent.set_mcp_tools(tools)
    if tools:
        logger.info("Gave %d MCP tools to %s", len(tools), getattr(agent, "name", "the agent"))
    return tools
