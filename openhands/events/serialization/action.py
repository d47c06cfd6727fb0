"""``args`` ⇄ Action, including the legacy rewrites of old trajectories."""

from __future__ import annotations

import ast
import re
from typing import Any

from openhands.core.exceptions import LLMMalformedActionError
from openhands.events.action.action import Action, ActionSecurityRisk
from openhands.events.serialization.registry import ACTION_TYPE_TO_CLASS

_FILE_EDITOR_CALL = re.compile(r"^\s*print\(file_editor\(\*\*(\{.*\})\)\)\s*$", re.DOTALL)
_RISKS = {r.value: r for r in ActionSecurityRisk}
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


def _convert_security_risk(args: dict[str, Any]) -> None:
    """Ints become the enum; anything invalid is dropped (so UNKNOWN applies); null stays."""
    if "security_risk" not in args:
        return
    risk = args["security_risk"]
    if risk is None:
        return
    member = None if type(risk) is not int else _RISKS.get(risk)
    if member is None:
        del args["security_risk"]
    else:
        args["security_risk"] = member


def _rewrite_legacy_args(args: dict[str, Any]) -> str | None:
    """Apply the backward-compatibility rewrites in place; return a legacy timestamp if any."""
    timestamp = args.pop("timestamp", None)
    _convert_security_risk(args)
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
    if not isinstance(action_type, str):
        raise LLMMalformedActionError(f"'action' key is not a string: {data!r}")
    cls = ACTION_TYPE_TO_CLASS.get(action_type)
    if cls is None:
        known = ", ".join(sorted(ACTION_TYPE_TO_CLASS))
        raise LLMMalformedActionError(
            f"'{action_type}' is not a known action type. Known types: {known}"
        )
    raw_args = data.get("args") or {}
    if not isinstance(raw_args, dict):
        raise LLMMalformedActionError(f"'args' of action '{action_type}' must be an object")
    args = dict(raw_args)  # never mutate the caller's dict
    legacy_timestamp = None
    if _LEGACY_KEYS.isdisjoint(args):
        _convert_security_risk(args)
    else:
        legacy_timestamp = _rewrite_legacy_args(args)
    blocking = bool(args.get("blocking", False))
    try:
        event = cls(**args)
    except TypeError as e:
        raise LLMMalformedActionError(f"action '{action_type}' has bad arguments: {e}") from e
    if "timeout" in data:
        event.set_hard_timeout(data["timeout"], blocking=blocking)
    if legacy_timestamp is not None:
        event.timestamp = legacy_timestamp
    return event
