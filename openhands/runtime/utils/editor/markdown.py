"""Markdown view of binary documents (.pdf, .docx, ...) for the editor's `view` command.

The converter library is optional in the sandbox; without it the agent gets a clear error
instead of unreadable bytes.
"""

from __future__ import annotations

from pathlib import Path

from openhands.runtime.utils.editor.errors import ToolError


def convert_to_markdown(path: Path) -> str:
    try:
        from markitdown import MarkItDown  # optional dependency
    except ImportError:
        raise ToolError(
            f"Cannot show {path}: converting {path.suffix} files to Markdown needs the "
            "`markitdown` package, which is not installed in this sandbox."
        ) from None
    try:
        return str(MarkItDown().convert(str(path)).text_content)
    except Exception as exc:  # converters raise many unrelated types
        raise ToolError(f"Error converting {path} to Markdown: {exc}") from None
