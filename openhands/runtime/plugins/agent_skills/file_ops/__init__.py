"""The windowed file viewer and search of AgentSkills; the code is in ``file_ops.file_ops``.

This package path is the older import path: it re-exports the same functions. The viewer
state (``CURRENT_FILE``, ``CURRENT_LINE``) is read live from the inner module.
"""

from typing import Any

from openhands.runtime.plugins.agent_skills.file_ops import file_ops
from openhands.runtime.plugins.agent_skills.file_ops.file_ops import (
    LINTER_ERROR_MSG,
    MSG_FILE_UPDATED,
    WINDOW,
    LineNumberError,
    find_file,
    goto_line,
    open_file,
    scroll_down,
    scroll_up,
    search_dir,
    search_file,
)

__all__ = [
    "LINTER_ERROR_MSG",
    "MSG_FILE_UPDATED",
    "WINDOW",
    "LineNumberError",
    "file_ops",
    "find_file",
    "goto_line",
    "open_file",
    "scroll_down",
    "scroll_up",
    "search_dir",
    "search_file",
]


def __getattr__(name: str) -> Any:
    if name in ("CURRENT_FILE", "CURRENT_LINE"):
        return getattr(file_ops, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
