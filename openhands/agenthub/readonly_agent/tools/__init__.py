"""ReadOnlyAgent's tools: search and view, plus CodeAct's think and finish."""

from openhands.agenthub.readonly_agent.tools.glob import GLOB_TOOL_NAME, GlobTool, glob_command
from openhands.agenthub.readonly_agent.tools.grep import GREP_TOOL_NAME, GrepTool, grep_command
from openhands.agenthub.readonly_agent.tools.view import VIEW_TOOL_NAME, ViewTool

__all__ = [
    "GLOB_TOOL_NAME",
    "GREP_TOOL_NAME",
    "VIEW_TOOL_NAME",
    "GlobTool",
    "GrepTool",
    "ViewTool",
    "glob_command",
    "grep_command",
]
