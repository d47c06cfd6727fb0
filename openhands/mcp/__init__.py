"""MCP client side: tools of remote MCP servers for the agent (runtime.md §10.8)."""

from openhands.mcp.client import MCPClient, RemoteMCPServer
from openhands.mcp.utils import add_mcp_tools_to_agent, call_tool_mcp, fetch_mcp_tools_from_config

__all__ = [
    "MCPClient",
    "RemoteMCPServer",
    "add_mcp_tools_to_agent",
    "call_tool_mcp",
    "fetch_mcp_tools_from_config",
]
