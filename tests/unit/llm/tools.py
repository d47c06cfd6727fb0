"""Tool schemas in the shape CodeActAgent sends (agent spec §2.2), for test fixtures."""

from __future__ import annotations

from typing import Any

SECURITY_RISK: dict[str, Any] = {
    "type": "string",
    "description": "How risky the action is; see the risk policy in the system prompt.",
    "enum": ["LOW", "MEDIUM", "HIGH"],
}


def _tool(name: str, description: str, parameters: dict[str, Any] | None) -> dict[str, Any]:
    function: dict[str, Any] = {"name": name, "description": description}
    if parameters is not None:
        function["parameters"] = parameters
    return {"type": "function", "function": function}


EXECUTE_BASH = _tool(
    "execute_bash",
    "Run one shell command in a persistent session.",
    {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command to run."},
            "is_input": {
                "type": "string",
                "description": "Whether the command is input for the running process.",
                "enum": ["true", "false"],
            },
            "timeout": {"type": "number", "description": "Hard timeout in seconds."},
            "security_risk": SECURITY_RISK,
        },
        "required": ["command", "security_risk"],
    },
)

THINK = _tool(
    "think",
    "Log a thought.",
    {
        "type": "object",
        "properties": {"thought": {"type": "string", "description": "The thought."}},
        "required": ["thought"],
    },
)

FINISH = _tool(
    "finish",
    "Signal that the task is done.",
    {
        "type": "object",
        "properties": {"message": {"type": "string", "description": "Final message."}},
        "required": ["message"],
    },
)

REQUEST_CONDENSATION = _tool(
    "request_condensation",
    "Ask for the history to be condensed.",
    {"type": "object", "properties": {}, "required": []},
)

BROWSER = _tool(
    "browser",
    "Drive the browser with BrowserGym calls.",
    {
        "type": "object",
        "properties": {
            "code": {"type": "string", "description": "The calls to run."},
            "security_risk": SECURITY_RISK,
        },
        "required": ["code", "security_risk"],
    },
)

TASK_TRACKER = _tool(
    "task_tracker",
    "View or replace the task list.",
    {
        "type": "object",
        "properties": {
            "command": {"type": "string", "enum": ["view", "plan"], "description": "What to do."},
            "task_list": {
                "type": "array",
                "description": "The full list.",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "title": {"type": "string"},
                        "status": {"type": "string", "enum": ["todo", "in_progress", "done"]},
                        "notes": {"type": "string"},
                    },
                    "required": ["id", "title", "status"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    },
)

STR_REPLACE_EDITOR = _tool(
    "str_replace_editor",
    "View and edit files.",
    {
        "type": "object",
        "properties": {
            "command": {
                "type": "string",
                "enum": ["view", "create", "str_replace", "insert", "undo_edit"],
                "description": "The editor command.",
            },
            "path": {"type": "string", "description": "Absolute path."},
            "file_text": {"type": "string", "description": "Content for create."},
            "old_str": {"type": "string", "description": "Text to replace."},
            "new_str": {"type": "string", "description": "Replacement text."},
            "insert_line": {"type": "integer", "description": "Insert after this line."},
            "view_range": {
                "type": "array",
                "items": {"type": "integer"},
                "description": "[start, end], 1-based.",
            },
            "security_risk": SECURITY_RISK,
        },
        "required": ["command", "path", "security_risk"],
    },
)

NO_PARAMETERS = _tool("ping", "A tool without a parameters object.", None)

DEFAULT_TOOLS = [EXECUTE_BASH, THINK, FINISH, BROWSER, TASK_TRACKER, STR_REPLACE_EDITOR]
