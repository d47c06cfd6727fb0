"""Everything the kernel star-imports when both ``agent_skills`` and ``jupyter`` are loaded.

``DOCUMENTATION`` (signatures and docstrings) is what prompts show the agent.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from openhands.runtime.plugins.agent_skills.file_editor import file_editor
from openhands.runtime.plugins.agent_skills.file_ops import (
    find_file,
    goto_line,
    open_file,
    scroll_down,
    scroll_up,
    search_dir,
    search_file,
)
from openhands.runtime.plugins.agent_skills.file_reader.file_readers import (
    parse_docx,
    parse_latex,
    parse_pdf,
    parse_pptx,
)

__all__ = [
    "file_editor",
    "find_file",
    "goto_line",
    "open_file",
    "parse_docx",
    "parse_latex",
    "parse_pdf",
    "parse_pptx",
    "scroll_down",
    "scroll_up",
    "search_dir",
    "search_file",
]


# The order the documentation lists them in: viewer, search, documents, editor.
SKILLS = (
    open_file,
    goto_line,
    scroll_down,
    scroll_up,
    search_dir,
    search_file,
    find_file,
    parse_pdf,
    parse_docx,
    parse_latex,
    parse_pptx,
    file_editor,
)


def _describe(function: Callable[..., object]) -> str:
    signature = inspect.signature(function).replace(return_annotation=inspect.Signature.empty)
    doc = inspect.cleandoc(function.__doc__ or "")
    body = "\n".join(f"    {line}" if line else "" for line in doc.splitlines())
    return f"{getattr(function, '__name__', '')}{str(signature).replace(chr(39), '')}:\n{body}"


DOCUMENTATION = "\n\n".join(_describe(function) for function in SKILLS) + "\n"
