"""How the editor shows text: ``cat -n`` style snippets and clipping of long output."""

from __future__ import annotations

MAX_RESPONSE_LEN = 16_000
SNIPPET_CONTEXT_LINES = 4

FILE_CLIPPED_NOTICE = (
    "<response clipped><NOTE>Due to the max output limit, only part of this file has been shown "
    "to you. You should retry this tool after you have searched inside the file with `grep -n` "
    "in order to find the line numbers of what you are looking for.</NOTE>"
)
DIRECTORY_CLIPPED_NOTICE = (
    "<response clipped><NOTE>Due to the max output limit, only part of this directory has been "
    "shown to you. You should use `ls -la` instead to view large directories incrementally."
    "</NOTE>"
)
BINARY_CLIPPED_NOTICE = (
    "<response clipped><NOTE>Due to the max output limit, only part of the converted file has "
    "been shown to you.</NOTE>"
)


def clip(content: str, notice: str, limit: int = MAX_RESPONSE_LEN) -> str:
    if len(content) <= limit:
        return content
    return content[:limit] + notice


def numbered_snippet(content: str, description: str, first_line: int = 1) -> str:
    """``Here's the result of running `cat -n` on <description>:`` and one numbered line each."""
    clipped = clip(content, FILE_CLIPPED_NOTICE)
    lines = [f"{n:>6}\t{line}" for n, line in enumerate(clipped.split("\n"), start=first_line)]
    return f"Here's the result of running `cat -n` on {description}:\n" + "\n".join(lines) + "\n"
