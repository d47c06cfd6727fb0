"""ReadOnlyAgent: tool call → Action. Searches become shell commands, views file reads."""

from __future__ import annotations

from typing import Any

from openhands.agenthub.codeact_agent.tools import FINISH_TOOL_NAME, THINK_TOOL_NAME
from openhands.agenthub.readonly_agent.tools import (
    GLOB_TOOL_NAME,
    GREP_TOOL_NAME,
    VIEW_TOOL_NAME,
    glob_command,
    grep_command,
)
from openhands.agenthub.tool_calls import ToolHandler, actions_from_response, require
from openhands.events.action import (
    Action,
    AgentFinishAction,
    AgentThinkAction,
    CmdRunAction,
    FileReadAction,
)
from openhands.events.event import FileReadSource


def _grep(arguments: dict[str, Any]) -> Action:
    pattern = require(arguments, "pattern", GREP_TOOL_NAME)
    command = grep_command(pattern, arguments.get("path"), arguments.get("include"))
    return CmdRunAction(command=command)


def _glob(arguments: dict[str, Any]) -> Action:
    pattern = require(arguments, "pattern", GLOB_TOOL_NAME)
    return CmdRunAction(command=glob_command(pattern, arguments.get("path")))


def _view(arguments: dict[str, Any]) -> Action:
    path = require(arguments, "path", VIEW_TOOL_NAME)
    return FileReadAction(
        path=path, impl_source=FileReadSource.OH_ACI, view_range=arguments.get("view_range")
    )


READONLY_TOOL_HANDLERS: dict[str, ToolHandler] = {
    THINK_TOOL_NAME: lambda arguments: AgentThinkAction(thought=arguments.get("thought", "")),
    FINISH_TOOL_NAME: lambda arguments: AgentFinishAction(
        final_thought=arguments.get("message", "")
    ),
    GREP_TOOL_NAME: _grep,
    GLOB_TOOL_NAME: _glob,
    VIEW_TOOL_NAME: _view,
}


def response_to_actions(response: Any) -> list[Action]:
    """ReadOnlyAgent's actions for one LLM response; MCP tools are never used."""
    return actions_from_response(response, READONLY_TOOL_HANDLERS, mcp_tool_names=None)
