"""CodeActAgent: tool call → Action, one handler per tool name.

Dispatch is by name only: a call to a known tool maps to its action even when that tool
is not enabled for this agent.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from openhands.agenthub.codeact_agent.tools import (
    BROWSER_TOOL_NAME,
    CONDENSATION_REQUEST_TOOL_NAME,
    EXECUTE_BASH_TOOL_NAME,
    EXECUTE_IPYTHON_TOOL_NAME,
    FINISH_TOOL_NAME,
    LLM_BASED_EDIT_TOOL_NAME,
    STR_REPLACE_EDITOR_TOOL_NAME,
    TASK_TRACKER_TOOL_NAME,
    THINK_TOOL_NAME,
    Tool,
    create_str_replace_editor_tool,
)
from openhands.agenthub.tool_calls import (
    ToolHandler,
    actions_from_response,
    require,
    set_security_risk,
)
from openhands.core.exceptions import FunctionCallValidationError
from openhands.events.action import (
    Action,
    AgentDelegateAction,
    AgentFinishAction,
    AgentThinkAction,
    BrowseInteractiveAction,
    CmdRunAction,
    CondensationRequestAction,
    FileEditAction,
    FileReadAction,
    IPythonRunCellAction,
    TaskTrackingAction,
)
from openhands.events.event import FileEditSource, FileReadSource

DELEGATE_TO_BROWSING_AGENT = "delegate_to_browsing_agent"
EDITOR_ARGUMENTS = frozenset(
    create_str_replace_editor_tool()["function"]["parameters"]["properties"]
)
TASK_DEFAULTS = (("title", "Untitled task"), ("status", "todo"), ("notes", ""))


def _execute_bash(arguments: dict[str, Any]) -> Action:
    command = require(arguments, "command", EXECUTE_BASH_TOOL_NAME)
    # Only the string "true" counts; a JSON true does not (as in the reference).
    action = CmdRunAction(command=command, is_input=arguments.get("is_input", "false") == "true")
    if "timeout" in arguments:
        timeout = arguments["timeout"]
        try:
            seconds = float(timeout)
        except (TypeError, ValueError) as exc:
            raise FunctionCallValidationError(
                f"Invalid float passed to 'timeout' argument: {timeout}"
            ) from exc
        action.set_hard_timeout(seconds)
    set_security_risk(action, arguments)
    return action


def _execute_ipython(arguments: dict[str, Any]) -> Action:
    code = require(arguments, "code", EXECUTE_IPYTHON_TOOL_NAME)
    action = IPythonRunCellAction(code=code)
    set_security_risk(action, arguments)
    return action


def _delegate_to_browsing_agent(arguments: dict[str, Any]) -> Action:
    return AgentDelegateAction(agent="BrowsingAgent", inputs=arguments)


def _finish(arguments: dict[str, Any]) -> Action:
    return AgentFinishAction(final_thought=arguments.get("message", ""))


def _edit_file(arguments: dict[str, Any]) -> Action:
    path = require(arguments, "path", LLM_BASED_EDIT_TOOL_NAME)
    content = require(arguments, "content", LLM_BASED_EDIT_TOOL_NAME)
    return FileEditAction(
        path=path,
        content=content,
        start=arguments.get("start", 1),
        end=arguments.get("end", -1),
        impl_source=arguments.get("impl_source", FileEditSource.LLM_BASED_EDIT),
    )


def _str_replace_editor(arguments: dict[str, Any]) -> Action:
    command = require(arguments, "command", STR_REPLACE_EDITOR_TOOL_NAME)
    path = require(arguments, "path", STR_REPLACE_EDITOR_TOOL_NAME)
    others = {k: v for k, v in arguments.items() if k not in ("command", "path")}
    action: Action
    if command == "view":
        action = FileReadAction(
            path=path, impl_source=FileReadSource.OH_ACI, view_range=others.get("view_range")
        )
    else:
        others.pop("view_range", None)
        edit_kwargs: dict[str, Any] = {}
        for key, value in others.items():
            if key not in EDITOR_ARGUMENTS:
                raise FunctionCallValidationError(
                    f"Unexpected argument {key} in tool call {STR_REPLACE_EDITOR_TOOL_NAME}. "
                    f"Allowed arguments are: {set(EDITOR_ARGUMENTS)}"
                )
            if key != "security_risk":
                edit_kwargs[key] = value
        action = FileEditAction(
            path=path, command=command, impl_source=FileEditSource.OH_ACI, **edit_kwargs
        )
    set_security_risk(action, arguments)
    return action


def _think(arguments: dict[str, Any]) -> Action:
    return AgentThinkAction(thought=arguments.get("thought", ""))


def _request_condensation(arguments: dict[str, Any]) -> Action:
    return CondensationRequestAction()


def _browser(arguments: dict[str, Any]) -> Action:
    code = require(arguments, "code", BROWSER_TOOL_NAME)
    action = BrowseInteractiveAction(browser_actions=code)
    set_security_risk(action, arguments)
    return action


def _task_tracker(arguments: dict[str, Any]) -> Action:
    command = require(arguments, "command", TASK_TRACKER_TOOL_NAME)
    if command == "plan" and "task_list" not in arguments:
        raise FunctionCallValidationError(
            f'Missing required argument "task_list" for "plan" command in tool call '
            f"{TASK_TRACKER_TOOL_NAME}"
        )
    raw_tasks = arguments.get("task_list", [])
    if not isinstance(raw_tasks, list):
        raise FunctionCallValidationError(
            f'Invalid format for "task_list". Expected a list but got {type(raw_tasks)}.'
        )
    return TaskTrackingAction(command=command, task_list=normalize_task_list(raw_tasks))


def normalize_task_list(raw_tasks: list[Any]) -> list[dict[str, Any]]:
    """Every task as ``{id, title, status, notes}``; missing keys get defaults."""
    tasks = []
    for index, task in enumerate(raw_tasks):
        if not isinstance(task, dict):
            raise FunctionCallValidationError(
                f"Unexpected task format in task_list: {type(task)} - {task}"
            )
        normalized = {"id": task.get("id", f"task-{index + 1}")}
        for key, default in TASK_DEFAULTS:
            normalized[key] = task.get(key, default)
        tasks.append(normalized)
    return tasks


# Built-in tools, looked up before MCP tools (so a built-in name shadows an MCP tool).
CODEACT_TOOL_HANDLERS: dict[str, ToolHandler] = {
    EXECUTE_BASH_TOOL_NAME: _execute_bash,
    EXECUTE_IPYTHON_TOOL_NAME: _execute_ipython,
    DELEGATE_TO_BROWSING_AGENT: _delegate_to_browsing_agent,
    FINISH_TOOL_NAME: _finish,
    LLM_BASED_EDIT_TOOL_NAME: _edit_file,
    STR_REPLACE_EDITOR_TOOL_NAME: _str_replace_editor,
    THINK_TOOL_NAME: _think,
    CONDENSATION_REQUEST_TOOL_NAME: _request_condensation,
    BROWSER_TOOL_NAME: _browser,
    TASK_TRACKER_TOOL_NAME: _task_tracker,
}


def response_to_actions(response: Any, mcp_tool_names: Iterable[str] | None = None) -> list[Action]:
    """CodeActAgent's actions for one LLM response (see :mod:`openhands.agenthub.tool_calls`)."""
    return actions_from_response(response, CODEACT_TOOL_HANDLERS, mcp_tool_names)


def check_tools(tools: list[Tool], model: str) -> list[Tool]:
    """Adapt tool schemas to what a model accepts.

    Gemini rejects ``default`` and most string ``format`` values on top-level properties;
    those are removed on a copy. Other models get the tools unchanged.
    """
    if "gemini" not in model.lower():
        return tools
    checked = copy.deepcopy(tools)
    for tool in checked:
        properties = tool.get("function", {}).get("parameters", {}).get("properties", {})
        for prop in properties.values():
            prop.pop("default", None)
            if prop.get("type") == "string" and prop.get("format") not in (
                None,
                "enum",
                "date-time",
            ):
                del prop["format"]
    return checked
