"""Microagent kinds and the frontmatter a microagent file may carry.

``MicroagentResponse`` and ``MicroagentContentResponse`` (a repository's microagents as
the git-provider routes list them) are the classes of
``openhands.integrations.service_types``, re-exported here on first access
(compatibility path; loading them does not make this module import the integrations).
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from openhands.core.config.mcp_config import MCPConfig

if TYPE_CHECKING:
    from openhands.integrations.service_types import (
        MicroagentContentResponse,
        MicroagentResponse,
    )

__all__ = [
    "InputMetadata",
    "MicroagentContentResponse",
    "MicroagentMetadata",
    "MicroagentResponse",
    "MicroagentType",
]


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


def __getattr__(name: str) -> Any:
    if name in ("MicroagentResponse", "MicroagentContentResponse"):
        from openhands.integrations import service_types

        return getattr(service_types, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
