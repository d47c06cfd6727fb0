"""Editor actions in, observations out (runtime.md §5.4).

Errors never become ErrorObservations here: they come back as the normal read/edit
observation with content ``ERROR:\\n<message>``.
"""

from __future__ import annotations

import difflib

from openhands.events.action import FileEditAction, FileReadAction
from openhands.events.event import FileEditSource, FileReadSource
from openhands.events.observation import FileEditObservation, FileReadObservation
from openhands.runtime.utils.editor.editor import OHEditor, ToolResult
from openhands.runtime.utils.editor.errors import ToolError


def unified_diff(old: str, new: str, path: str) -> str:
    """Zero-context unified diff with right-trimmed lines; empty when nothing changed."""
    if old == new:
        return ""
    lines = difflib.unified_diff(old.split("\n"), new.split("\n"), fromfile=path, tofile=path, n=0)
    return "\n".join(line.rstrip() for line in lines)


def editor_read(editor: OHEditor, action: FileReadAction) -> FileReadObservation:
    try:
        content = editor(command="view", path=action.path, view_range=action.view_range).output
    except ToolError as exc:
        content = f"ERROR:\n{exc.message}"
    return FileReadObservation(content=content, path=action.path, impl_source=FileReadSource.OH_ACI)


def editor_edit(editor: OHEditor, action: FileEditAction) -> FileEditObservation:
    result: ToolResult | None = None
    try:
        insert_line = _as_int(action.insert_line)
        result = editor(
            command=action.command,
            path=action.path,
            file_text=action.file_text,
            old_str=action.old_str,
            new_str=action.new_str,
            insert_line=insert_line,
        )
        content = result.output
    except ToolError as exc:
        content = f"ERROR:\n{exc.message}"
    diff = ""
    if result is not None and result.new_content is not None and action.command != "view":
        diff = unified_diff(result.old_content or "", result.new_content, action.path)
    return FileEditObservation(
        content=content,
        path=action.path,
        prev_exist=False,
        old_content=action.old_str,
        new_content=action.new_str,
        impl_source=FileEditSource.OH_ACI,
        diff=diff,
    )


def _as_int(value: object) -> int | None:
    if value is None or isinstance(value, int):
        return value
    try:
        return int(str(value))
    except ValueError:
        raise ToolError(f"Invalid insert_line value: '{value}'. Expected an integer.") from None
