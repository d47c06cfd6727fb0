"""Converting between MCP's tool and result models and what the agent and events use."""

from __future__ import annotations

import json
from typing import Any

from mcp_types import CallToolResult, Tool

from openhands.mcp.tool import MCPClientTool

# The only value of `resultType` an ordinary tool call gives; it says nothing to the model.
_COMPLETE = "complete"


def tool_to_schema(tool: Tool) -> dict[str, Any]:
    """The OpenAI function-calling schema of an MCP tool (agent.md §2.1)."""
    return MCPClientTool.from_mcp(tool).to_param()


def result_to_json(result: CallToolResult) -> str:
    """The content of an MCPObservation: the tool result in its MCP wire form.

    Keys use the protocol's spelling (``content``, ``structuredContent``, ``isError``,
    ``_meta``), which is what MCP servers document and what models have seen.
    """
    data = result.model_dump(mode="json", by_alias=True)
    if data.get("resultType") == _COMPLETE:
        del data["resultType"]
    return json.dumps(data, ensure_ascii=False)
