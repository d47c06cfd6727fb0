"""``glob``: list the files whose path matches a glob pattern (ripgrep)."""

from __future__ import annotations

import shlex

from openhands.agenthub.codeact_agent.tools._schema import Tool, function_tool

GLOB_TOOL_NAME = "glob"
MAX_RESULTS = 100

GlobTool: Tool = function_tool(
    name=GLOB_TOOL_NAME,
    description=(
        "Find files by name with a glob pattern such as `**/*.js` or `src/**/test_*.py`. "
        "Returns up to 100 paths, most recently modified first."
    ),
    properties={
        "pattern": {"type": "string", "description": "The glob pattern file paths must match."},
        "path": {
            "type": "string",
            "description": "Directory to search in. Defaults to the current directory.",
        },
    },
    required=["pattern"],
)


def glob_command(pattern: str, path: str | None = None) -> str:
    """The shell command for a glob call: a header line, then ripgrep's file list."""
    search = (
        f"rg --files {shlex.quote(path) if path else '.'} -g {shlex.quote(pattern)} "
        f"--sortr=modified | head -n {MAX_RESULTS}"
    )
    header = shlex.quote(f"Files matching the glob {pattern}:")
    return f"echo {header}; {search}"
