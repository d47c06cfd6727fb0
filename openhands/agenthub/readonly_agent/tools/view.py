"""``view``: read a file (with line numbers) or list a directory."""

from __future__ import annotations

from openhands.agenthub.codeact_agent.tools._schema import Tool, function_tool

VIEW_TOOL_NAME = "view"

ViewTool: Tool = function_tool(
    name=VIEW_TOOL_NAME,
    description=(
        "Show a file with line numbers, or list a directory two levels deep (hidden files "
        "left out). Use `view_range` to read part of a long file."
    ),
    properties={
        "path": {"type": "string", "description": "Absolute path of the file or directory."},
        "view_range": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "`[start, end]` line numbers, 1-based; `end` = -1 reads to the end.",
        },
    },
    required=["path"],
)
