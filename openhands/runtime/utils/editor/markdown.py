"""Markdown view of binary documents (.pdf, .docx, ...) for the editor's `view` command.

The converter library is optional in the sandbox; without it the agent gets a clear error
instead of unreadable bytes.
"""

from __future__ import annotations

from pathlib import Path

from openhands.runtime.utils.editor.errors import ToolError


def _pdf_text(path: Path) -> str | None:
    """The text of a PDF page by page through ``pypdf``; None when it is not installed."""
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError
    except ImportError:
        return None
    try:
        pages = [page.extract_text() or "" for page in PdfReader(str(path)).pages]
    except (PyPdfError, OSError, ValueError) as exc:
        raise ToolError(f"Error converting {path} to Markdown: {exc}") from None
    return "\n\n".join(f"<!-- Page {n} -->\n{text.strip()}" for n, text in enumerate(pages, 1))


def convert_to_markdown(path: Path) -> str:
    try:
        from markitdown import MarkItDown  # optional dependency
    except ImportError:
        if path.suffix.lower() == ".pdf":
            text = _pdf_text(path)
            if text is not None:
                return text
        raise ToolError(
            f"Cannot show {path}: converting {path.suffix} files to Markdown needs the "
            "`markitdown` package, which is not installed in this sandbox."
        ) from None
    try:
        return str(MarkItDown().convert(str(path)).text_content)
    except Exception as exc:  # converters raise many unrelated types
        raise ToolError(f"Error converting {path} to Markdown: {exc}") from None
