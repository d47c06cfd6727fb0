"""LocAgent: tool call → Action. Code-search tools become calls in the IPython kernel."""

from __future__ import annotations

from typing import Any

from openhands.agenthub.codeact_agent.tools import FINISH_TOOL_NAME
from openhands.agenthub.loc_agent.tools import (
    EXPLORE_TREE_STRUCTURE_TOOL_NAME,
    GET_ENTITY_CONTENTS_TOOL_NAME,
    SEARCH_CODE_SNIPPETS_TOOL_NAME,
)
from openhands.agenthub.tool_calls import ToolHandler, actions_from_response
from openhands.events.action import Action, AgentFinishAction, IPythonRunCellAction


def _kernel_call(function_name: str) -> ToolHandler:
    def handle(arguments: dict[str, Any]) -> Action:
        return IPythonRunCellAction(code=f"print({function_name}(**{arguments!r}))")

    return handle


LOC_TOOL_HANDLERS: dict[str, ToolHandler] = {
    FINISH_TOOL_NAME: lambda arguments: AgentFinishAction(
        final_thought=arguments.get("message", "")
    ),
    SEARCH_CODE_SNIPPETS_TOOL_NAME: _kernel_call(SEARCH_CODE_SNIPPETS_TOOL_NAME),
    GET_ENTITY_CONTENTS_TOOL_NAME: _kernel_call(GET_ENTITY_CONTENTS_TOOL_NAME),
    EXPLORE_TREE_STRUCTURE_TOOL_NAME: _kernel_call(EXPLORE_TREE_STRUCTURE_TOOL_NAME),
}


def response_to_actions(response: Any, mcp_tool_names: list[str] | None = None) -> list[Action]:
    return actions_from_response(response, LOC_TOOL_HANDLERS, mcp_tool_names)
