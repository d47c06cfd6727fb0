"""``grep``: list the files whose content matches a regular expression (ripgrep)."""

from __future__ import annotations

import shlex

from openhands.agenthub.codeact_agent.tools._schema import Tool, function_tool

GREP_TOOL_NAME = "grep"
MAX_RESULTS = 100

GrepTool: Tool = function_tool(
    name=GREP_TOOL_NAME,
    description=(
        "Find the files whose content matches a regular expression (case-insensitive). "
        "Returns up to 100 file paths, most recently modified first. Use `include` to "
        "restrict the search to file names matching a glob, e.g. `*.py` or `*.{ts,tsx}`."
    ),
    properties={
        "pattern": {"type": "string", "description": "The regular expression to look for."},
        "path": {
            "type": "string",
            "description": "Directory to search in. Defaults to the current directory.",
        },
        "include": {
            "type": "string",
            "description": "Only search files whose name matches this glob.",
        },
    },
    required=["pattern"],
)


def grep_command(pattern: str, path: str | None = None, include: str | None = None) -> str:
    """The shell command for a grep call: a header line, then ripgrep's file list."""
    search = f"rg -li {shlex.quote(pattern)} --sortr=modified"
    if include:
        search += f" --glob {shlex.quote(include)}"
    search += f" {shlex.quote(path) if path else '.'} | head -n {MAX_RESULTS}"
    header = shlex.quote(f"Files matching the search ({search}):")
    return f"echo {header}; {search}"
