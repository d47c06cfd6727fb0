"""MCP client side: tools of remote MCP servers for the agent (runtime.md §10.8)."""

from openhands.mcp.client import MCPClient, RemoteMCPServer
from openhands.mcp.error_collector import mcp_error_collector
from openhands.mcp.tool import MCPClientTool
from openhands.mcp.utils import (
    add_mcp_tools_to_agent,
    call_tool_mcp,
    convert_mcp_clients_to_tools,
    create_mcp_clients,
    fetch_mcp_tools_from_config,
)

__all__ = [
    "MCPClient",
    "MCPClientTool",
    "RemoteMCPServer",
    "add_mcp_tools_to_agent",
    "call_tool_mcp",
    "convert_mcp_clients_to_tools",
    "create_mcp_clients",
    "fetch_mcp_tools_from_config",
    "mcp_error_collector",
]
