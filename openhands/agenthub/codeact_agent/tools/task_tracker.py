"""``task_tracker``: keep a structured task list for long tasks."""

from __future__ import annotations

from openhands.agenthub.codeact_agent.tools._schema import Tool, function_tool

TASK_TRACKER_TOOL_NAME = "task_tracker"

_LONG_DESCRIPTION = """\
Keep a task list for the current piece of work, so that progress on long or multi-step \
tasks stays visible to you and the user.

Commands:
* `view` shows the current list.
* `plan` replaces the whole list with `task_list`. Always send every task, not only the \
changed ones.

Use it when the work has several steps, when the user lists several things to do, or \
when new sub-tasks come up along the way. Skip it for a single, simple action.

Keep it honest:
* exactly one task is `in_progress` while you work on it;
* mark a task `done` as soon as it is finished and verified, not in a batch at the end;
* a task that is blocked or only partly finished stays `in_progress` or `todo`, with a \
note saying why;
* give tasks short, concrete titles and use `notes` for details."""

_SHORT_DESCRIPTION = """\
Keep a task list for multi-step work. `view` shows it; `plan` replaces it with the full \
`task_list` (send every task each time). Keep one task `in_progress`, and mark tasks \
`done` as soon as they are finished."""


def create_task_tracker_tool(use_short_description: bool = False) -> Tool:
    description = _SHORT_DESCRIPTION if use_short_description else _LONG_DESCRIPTION
    return function_tool(
        name=TASK_TRACKER_TOOL_NAME,
        description=description,
        properties={
            "command": {
                "type": "string",
                "enum": ["view", "plan"],
                "description": "`view` to show the list, `plan` to replace it.",
            },
            "task_list": {
                "type": "array",
                "description": "The complete task list. Required for `plan`.",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": "A unique task id."},
                        "title": {"type": "string", "description": "What the task is."},
                        "status": {
                            "type": "string",
                            "enum": ["todo", "in_progress", "done"],
                            "description": "todo, in_progress or done.",
                        },
                        "notes": {
                            "type": "string",
                            "description": "Optional details, e.g. why a task is blocked.",
                        },
                    },
                    "required": ["id", "title", "status"],
                    "additionalProperties": False,
                },
            },
        },
        required=["command"],
        additionalProperties=False,
    )
