"""ReadOnlyAgent: CodeAct that can look but not touch (search, view, think, finish)."""

from __future__ import annotations

import os
from typing import Any

from openhands.agenthub.codeact_agent.codeact_agent import CodeActAgent
from openhands.agenthub.codeact_agent.tools import FinishTool, ThinkTool, Tool
from openhands.agenthub.readonly_agent.function_calling import response_to_actions
from openhands.agenthub.readonly_agent.tools import GlobTool, GrepTool, ViewTool
from openhands.core.logger import openhands_logger as logger
from openhands.events.action import Action


class ReadOnlyAgent(CodeActAgent):
    VERSION = "1.0"

    def prompt_dir(self) -> str:
        return os.path.join(os.path.dirname(__file__), "prompts")

    def system_prompt_filename(self) -> str:
        return "system_prompt.j2"

    def _get_tools(self) -> list[Tool]:
        return [ThinkTool, FinishTool, GrepTool, GlobTool, ViewTool]

    def set_mcp_tools(self, mcp_tools: list[dict[str, Any]]) -> None:
        if mcp_tools:
            logger.info("ReadOnlyAgent ignores %d MCP tools", len(mcp_tools))

    def response_to_actions(self, response: Any) -> list[Action]:
        return response_to_actions(response)
