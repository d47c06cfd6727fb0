"""Microagent kinds and the frontmatter a microagent file may carry."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field

from openhands.core.config.mcp_config import MCPConfig


class MicroagentType(str, Enum):
    KNOWLEDGE = "knowledge"  # injected when one of its triggers appears in a message
    REPO_KNOWLEDGE = "repo"  # always part of the workspace context
    TASK = "task"  # a knowledge microagent with inputs, triggered by ``/name``


class InputMetadata(BaseModel):
    """A value a task microagent needs from the user."""

    name: str
    description: str


class MicroagentMetadata(BaseModel):
    """The YAML frontmatter of a microagent file (every key optional)."""

    name: str = "default"
    type: MicroagentType = MicroagentType.REPO_KNOWLEDGE
    version: str = "1.0.0"
    agent: str = "CodeActAgent"
    triggers: list[str] = Field(default_factory=list)
    inputs: list[InputMetadata] = Field(default_factory=list)
    mcp_tools: MCPConfig | None = Field(
        default=None, description="MCP servers this microagent brings (stdio only)."
    )
