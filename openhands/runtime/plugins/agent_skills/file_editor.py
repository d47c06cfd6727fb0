"""``file_editor``: the str_replace_editor (runtime.md §5.3) callable from an IPython cell.

The result is JSON between ``<oh_aci_output_<hex>>`` markers so that a caller reading the
cell output can pick it out of whatever else the cell printed (runtime.md §7).
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

from openhands.runtime.utils.editor import OHEditor, ToolError

_editor: OHEditor | None = None


class EditorOutput(str):
    """The wrapped result; shown as plain text (not a quoted repr) as a cell's last value."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def _get_editor() -> OHEditor:
    global _editor
    if _editor is None:
        _editor = OHEditor()
    _editor.workspace_root = Path(os.getcwd())  # hints follow the kernel's directory
    return _editor


def file_editor(
    command: str,
    path: str,
    file_text: str | None = None,
    view_range: list[int] | None = None,
    old_str: str | None = None,
    new_str: str | None = None,
    insert_line: int | None = None,
) -> EditorOutput:
    """Run a str_replace_editor command: view, create, str_replace, insert or undo_edit.

    Args:
        command: the editor command.
        path: absolute path of the file or directory.
        file_text: content of the new file (create).
        view_range: [first, last] lines to show, 1-based, -1 for the end (view).
        old_str: the exact text to replace (str_replace).
        new_str: the replacement (str_replace) or the text to insert (insert).
        insert_line: the line after which `new_str` goes, 0 for the top (insert).
    """
    result: dict[str, object] = {
        "output": "",
        "error": "",
        "path": path,
        "prev_exist": os.path.exists(path),
        "old_content": None,
        "new_content": None,
    }
    try:
        done = _get_editor()(
            command=command,
            path=path,
            file_text=file_text,
            view_range=view_range,
            old_str=old_str,
            new_str=new_str,
            insert_line=insert_line,
        )
        result.update(
            output=done.output,
            path=done.path or path,
            old_content=done.old_content,
            new_content=done.new_content,
        )
        result["formatted_output_and_error"] = done.output
    except ToolError as exc:
        result["error"] = exc.message
        result["formatted_output_and_error"] = f"ERROR:\n{exc.message}"
    marker = f"oh_aci_output_{uuid.uuid4().hex}"
    return EditorOutput(f"<{marker}>\n{json.dumps(result)}\n</{marker}>")
