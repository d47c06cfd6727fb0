"""The agent-side view of one MCP tool: its name, description and input schema."""

from __future__ import annotations

from typing import Any

from mcp_types import Tool
from pydantic import BaseModel, ConfigDict, Field


class MCPClientTool(BaseModel):
    """A tool a connected MCP server offers, as the LLM gets to see it."""

    model_config = ConfigDict(populate_by_name=True)

    name: str
    description: str | None = None
    # The protocol's own spelling, so a server's tool listing validates as it is.
    inputSchema: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )

    @classmethod
    def from_mcp(cls, tool: Tool) -> MCPClientTool:
        return cls(name=tool.name, description=tool.description, inputSchema=tool.input_schema)

    def to_param(self) -> dict[str, Any]:
        """The OpenAI function-calling form of the tool (agent.md §2.1)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                # LiteLLM and some providers reject a null description.
                "description": self.description or "",
                "parameters": self.inputSchema,
            },
        }
