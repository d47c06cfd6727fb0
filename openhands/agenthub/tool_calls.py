"""Turning an LLM response with tool calls into Actions, shared by the function-calling agents.

Each agent supplies a table ``tool name → handler``; a handler gets the parsed arguments
and returns the Action (or raises FunctionCallValidationError). This module does what is
common to all of them: parse the arguments, look the tool up (built-ins first, then MCP
tools), put the assistant's text into the first action's thought, and attach the
tool-call metadata and response id to every action.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from openhands.core.exceptions import FunctionCallNotExistsError, FunctionCallValidationError
from openhands.core.logger import openhands_logger as logger
from openhands.events.action import Action, ActionSecurityRisk, MCPAction, MessageAction
from openhands.events.tool import ToolCallMetadata

ToolHandler = Callable[[dict[str, Any]], Action]
RISK_BY_NAME: dict[str, ActionSecurityRisk] = {
    "LOW": ActionSecurityRisk.LOW,
    "MEDIUM": ActionSecurityRisk.MEDIUM,
    "HIGH": ActionSecurityRisk.HIGH,
}


def require(arguments: Mapping[str, Any], key: str, tool: str) -> Any:
    """The value of a required argument, or FunctionCallValidationError."""
    if key not in arguments:
        raise FunctionCallValidationError(f'Missing required argument "{key}" in tool call {tool}')
    return arguments[key]


def set_security_risk(action: Action, arguments: Mapping[str, Any]) -> None:
    """Copy a valid ``security_risk`` argument onto the action; ignore (and log) others."""
    if "security_risk" not in arguments:
        return
    value = arguments["security_risk"]
    risk = RISK_BY_NAME.get(value) if isinstance(value, str) else None
    if risk is None:
        logger.warning("Ignoring invalid security_risk %r on %s", value, type(action).__name__)
        return
    if hasattr(action, "security_risk"):
        action.security_risk = risk  # type: ignore[attr-defined]


def combine_thought(action: Action, thought: str) -> Action:
    """Prefix the action's own thought with the assistant text (if it has a thought)."""
    if not hasattr(action, "thought") or not thought:
        return action
    current = action.thought  # type: ignore[attr-defined]
    action.thought = f"{thought}\n{current}" if current else thought  # type: ignore[attr-defined]
    return action


def assistant_text(content: Any) -> str:
    """The text of an assistant message: a string, or the text parts of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(_get(part, "text") or "") for part in content if _get(part, "type") == "text"
        )
    return ""


def actions_from_response(
    response: Any,
    handlers: Mapping[str, ToolHandler],
    mcp_tool_names: Iterable[str] | None = None,
) -> list[Action]:
    """The actions of a completion response (a LiteLLM ModelResponse).

    No tool calls → one MessageAction waiting for the user. Unknown tool →
    FunctionCallNotExistsError; bad arguments → FunctionCallValidationError.
    """
    choices = response.choices
    if len(choices) != 1:
        raise ValueError(f"Expected exactly one choice in the LLM response, got {len(choices)}")
    message = choices[0].message
    tool_calls = list(getattr(message, "tool_calls", None) or [])
    mcp_names = set(mcp_tool_names or ())

    actions: list[Action] = []
    if tool_calls:
        thought = assistant_text(message.content)
        response_dump: dict[str, Any] | None = None
        for index, call in enumerate(tool_calls):
            name = call.function.name
            arguments = parse_arguments(call.function.arguments)
            action = _dispatch(name, arguments, handlers, mcp_names)
            if index == 0:
                action = combine_thought(action, thought)
            if response_dump is None:  # dumped once, after the first call was accepted
                response_dump = _dump(response)
            action.tool_call_metadata = ToolCallMetadata(
                function_name=name,
                tool_call_id=call.id,
                model_response=response_dump,
                total_calls_in_response=len(tool_calls),
            )
            actions.append(action)
    else:
        content = message.content
        actions.append(
            MessageAction(content=str(content) if content else "", wait_for_response=True)
        )

    for action in actions:
        action.response_id = response.id
    return actions


def parse_arguments(raw: Any) -> dict[str, Any]:
    try:
        arguments = json.loads(raw)
    except (json.JSONDecodeError, TypeError) as exc:
        raise FunctionCallValidationError(f"Failed to parse tool call arguments: {raw}") from exc
    if not isinstance(arguments, dict):
        raise FunctionCallValidationError(f"Failed to parse tool call arguments: {raw}")
    return arguments


def _dispatch(
    name: str,
    arguments: dict[str, Any],
    handlers: Mapping[str, ToolHandler],
    mcp_names: set[str],
) -> Action:
    handler = handlers.get(name)
    if handler is not None:
        return handler(arguments)
    if name in mcp_names:
        return MCPAction(name=name, arguments=arguments)
    raise FunctionCallNotExistsError(
        f"Tool {name} is not registered. (arguments: {arguments}). "
        "Please check the tool name and retry with an existing tool."
    )


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def _dump(response: Any) -> dict[str, Any]:
    if isinstance(response, dict):
        return response
    return dict(response.model_dump())
