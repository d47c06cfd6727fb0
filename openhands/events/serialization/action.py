"""``args`` ⇄ Action, including the legacy rewrites of old trajectories."""

from __future__ import annotations

import ast
import re
from typing import Any, NamedTuple

from openhands.core.exceptions import LLMMalformedActionError
from openhands.events.action.action import Action, ActionSecurityRisk
from openhands.events.serialization.registry import ACTION_ARG_ORDER, ACTION_TYPE_TO_CLASS

_FILE_EDITOR_CALL = re.compile(r"^\s*print\(file_editor\(\*\*(\{.*\})\)\)\s*$", re.DOTALL)
_RISKS = {r.value: r for r in ActionSecurityRisk}


class _FastPath(NamedTuple):
    """How to build an action of one type from ``args`` in event_to_dict's key order."""

    cls: type[Action]
    order: tuple[str, ...]
    risk_index: int | None  # position of ``security_risk`` among the values


_FAST_PATHS = {
    cls.action: _FastPath(
        cls, order, order.index("security_risk") if "security_risk" in order else None
    )
    for cls, order in ACTION_ARG_ORDER.items()
}
_LEGACY_KEYS = frozenset(
    {
        "timestamp",
        "is_confirmed",
        "images_urls",
        "keep_prompt",
        "task_completed",
        "translated_ipython_code",
    }
)


def _security_risk(risk: Any) -> ActionSecurityRisk | None:
    """Ints become the enum; anything invalid becomes UNKNOWN (every action's default, as
    if the key were dropped); null stays null."""
    if risk is None:
        return None
    member = _RISKS.get(risk) if type(risk) is int else None
    return ActionSecurityRisk.UNKNOWN if member is None else member


def _convert_security_risk(args: dict[str, Any]) -> None:
    if "security_risk" in args:
        args["security_risk"] = _security_risk(args["security_risk"])


def _rewrite_legacy_args(args: dict[str, Any]) -> str | None:
    """Apply the backward-compatibility rewrites in place; return a legacy timestamp if any."""
    timestamp = args.pop("timestamp", None)
    if "is_confirmed" in args:
        args["confirmation_state"] = args.pop("is_confirmed")
    if "images_urls" in args:
        args["image_urls"] = args.pop("images_urls")
    args.pop("keep_prompt", None)
    args.pop("task_completed", None)
    if "translated_ipython_code" in args:
        code = args.pop("translated_ipython_code")
        if isinstance(code, str):
            match = _FILE_EDITOR_CALL.match(code)
            if match:
                try:
                    parsed = ast.literal_eval(match.group(1))
                except (ValueError, SyntaxError):
                    parsed = None
                if isinstance(parsed, dict):
                    args.update(parsed)
        if args.get("command") == "view":
            del args["command"]
    return timestamp if isinstance(timestamp, str) else None


def action_from_dict(data: Any) -> Action:
    if not isinstance(data, dict):
        raise LLMMalformedActionError("action must be a dictionary")
    action_type = data.get("action")
    raw_args = data.get("args") or {}
    fast = _FAST_PATHS.get(action_type) if type(action_type) is str else None
    if (
        fast is not None
        and type(raw_args) is dict
        and "timeout" not in data
        and len(raw_args) == len(fast.order)
        and tuple(raw_args) == fast.order
    ):
        # The usual case: every declared field in declaration order, as event_to_dict
        # writes them. Positional arguments need no copy of the caller's dict and skip
        # keyword matching, which is slow for keys that are not interned (orjson's).
        values = list(raw_args.values())
        if fast.risk_index is not None:
            values[fast.risk_index] = _security_risk(values[fast.risk_index])
        try:
            return fast.cls(*values)
        except TypeError as e:
            raise LLMMalformedActionError(f"action '{action_type}' has bad arguments: {e}") from e
    return _action_from_parts(data, action_type, raw_args)


def _action_from_parts(data: dict[str, Any], action_type: Any, raw_args: Any) -> Action:
    if not isinstance(action_type, str):
        raise LLMMalformedActionError(f"'action' key is not a string: {data!r}")
    cls = ACTION_TYPE_TO_CLASS.get(action_type)
    if cls is None:
        known = ", ".join(sorted(ACTION_TYPE_TO_CLASS))
        raise LLMMalformedActionError(
            f"'{action_type}' is not a known action type. Known types: {known}"
        )
    if not isinstance(raw_args, dict):
        raise LLMMalformedActionError(f"'args' of action '{action_type}' must be an object")
    args = dict(raw_args)  # never mutate the caller's dict
    legacy_timestamp = None
    if not _LEGACY_KEYS.isdisjoint(args):
        legacy_timestamp = _rewrite_legacy_args(args)
    _convert_security_risk(args)
    try:
        event = cls(**args)
    except TypeError as e:
        raise LLMMalformedActionError(f"action '{action_type}' has bad arguments: {e}") from e
    if "timeout" in data:
        event.set_hard_timeout(data["timeout"], blocking=bool(args.get("blocking", False)))
    if legacy_timestamp is not None:
        event.timestamp = legacy_timestamp
    return event
