"""``str_replace_editor``: view, create and edit files with exact string replacement."""

from __future__ import annotations

import os

from openhands.agenthub.codeact_agent.tools._schema import (
    Tool,
    function_tool,
    security_risk_property,
)

STR_REPLACE_EDITOR_TOOL_NAME = "str_replace_editor"
SANDBOX_WORKSPACE = "/workspace"
HOST_RUNTIMES = ("local", "cli")

_LONG_DESCRIPTION = """\
View, create and edit plain-text files.

* `view` on a file shows its lines numbered like `cat -n`; on a directory it lists files \
and folders up to two levels deep, without hidden ones. `view_range` limits a file view.
* `create` writes `file_text` to a new file. It fails if the file already exists.
* `str_replace` replaces `old_str` with `new_str`. `old_str` must match exactly one place \
in the file, character for character including whitespace and indentation; include a few \
surrounding lines to make it unique. `new_str` may be empty to delete text.
* `insert` adds `new_str` after line `insert_line` (0 inserts at the top).
* `undo_edit` reverts the last edit made to the file.

State persists between calls. Long outputs are shortened and marked. Read a file before \
you edit it, and check the result afterwards. For several changes in one file, prefer \
several small replacements over one large one."""

_SHORT_DESCRIPTION = """\
View, create and edit files. `view` shows a file with line numbers (or lists a \
directory); `create` writes a new file; `str_replace` replaces an exact, unique `old_str` \
with `new_str`; `insert` adds `new_str` after `insert_line`; `undo_edit` reverts the last \
edit of a file."""


def _get_workspace_mount_path_from_env(runtime_type: str | None = None) -> str:
    """The workspace path to show in examples.

    In a sandbox it is ``/workspace``; a host runtime (local/cli) uses the host side of
    the ``…:/workspace`` mount in SANDBOX_VOLUMES (made absolute), else the current
    directory.
    """
    if runtime_type not in HOST_RUNTIMES:
        return SANDBOX_WORKSPACE
    for mount in (os.environ.get("SANDBOX_VOLUMES") or "").split(","):
        parts = mount.split(":")
        if len(parts) >= 2 and parts[1] == SANDBOX_WORKSPACE and parts[0]:
            return os.path.abspath(parts[0])
    return os.getcwd()


workspace_path_hint = _get_workspace_mount_path_from_env


def create_str_replace_editor_tool(
    use_short_description: bool = False,
    workspace_mount_path_in_sandbox: str | None = None,
    runtime_type: str | None = None,
) -> Tool:
    description = _SHORT_DESCRIPTION if use_short_description else _LONG_DESCRIPTION
    workspace = workspace_mount_path_in_sandbox or _get_workspace_mount_path_from_env(runtime_type)
    return function_tool(
        name=STR_REPLACE_EDITOR_TOOL_NAME,
        description=description,
        properties={
            "command": {
                "type": "string",
                "description": "One of `view`, `create`, `str_replace`, `insert`, `undo_edit`.",
                "enum": ["view", "create", "str_replace", "insert", "undo_edit"],
            },
            "path": {
                "type": "string",
                "description": (
                    f"Absolute path of the file or directory, e.g. `{workspace}/file.py` "
                    f"or `{workspace}`."
                ),
            },
            "file_text": {
                "type": "string",
                "description": "For `create`: the content of the new file.",
            },
            "old_str": {
                "type": "string",
                "description": "For `str_replace`: the exact text to replace.",
            },
            "new_str": {
                "type": "string",
                "description": (
                    "For `str_replace`: the replacement text. For `insert`: the text to add."
                ),
            },
            "insert_line": {
                "type": "integer",
                "description": "For `insert`: the line after which `new_str` is added.",
            },
            "view_range": {
                "type": "array",
                "items": {"type": "integer"},
                "description": (
                    "For `view` of a file: `[start, end]` line numbers, 1-based. "
                    "`[start, -1]` shows everything from `start` to the end."
                ),
            },
            "security_risk": security_risk_property(),
        },
        required=["command", "path", "security_risk"],
    )
