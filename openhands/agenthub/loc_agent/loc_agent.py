"""LocAgent: a CodeAct variant for locating the code relevant to an issue."""

from __future__ import annotations

from typing import Any

from openhands.agenthub.codeact_agent.codeact_agent import CodeActAgent
from openhands.agenthub.codeact_agent.tools import FinishTool, Tool
from openhands.agenthub.loc_agent.function_calling import response_to_actions
from openhands.agenthub.loc_agent.tools import (
    ExploreTreeStructureTool,
    GetEntityContentsTool,
    SearchCodeSnippetsTool,
)
from openhands.events.action import Action


class LocAgent(CodeActAgent):
    VERSION = "1.0"

    def _get_tools(self) -> list[Tool]:
        return [FinishTool, SearchCodeSnippetsTool, GetEntityContentsTool, ExploreTreeStructureTool]

    def response_to_actions(self, response: Any) -> list[Action]:
        return response_to_actions(response, mcp_tool_names=list(self.mcp_tools))
