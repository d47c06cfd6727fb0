"""The exact JSON form of events (events.md §3): ``event_to_dict`` / ``event_from_dict``."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel

from openhands.events.action.action import Action
from openhands.events.event import Event, EventSource
from openhands.events.observation.commands import (
    CmdOutputObservation,
    IPythonRunCellObservation,
)
from openhands.events.observation.observation import Observation
from openhands.events.serialization.action import action_from_dict
from openhands.events.serialization.observation import observation_from_dict
from openhands.events.serialization.registry import field_names
from openhands.events.tool import ToolCallMetadata
from openhands.llm.metrics import Metrics

# Keys stripped from browser observations in trajectories (screenshots optional).
_TRAJECTORY_DROPPED_KEYS: tuple[str, ...] = (
    "dom_object",
    "axtree_object",
    "active_page_index",
    "last_browser_action",
    "last_browser_action_error",
    "focused_element_bid",
    "extra_element_properties",
)
_SCREENSHOT_KEYS = ("screenshot", "set_of_marks")


def _plain(value: Any) -> Any:
    """Turn enums, pydantic models and nested records into JSON-ready values."""
    if isinstance(value, Enum):
        return value._value_  # the plain attribute behind the (slower) ``value`` property
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "__dataclass_fields__"):
        return {name: _plain(getattr(value, name)) for name in field_names(type(value))}
    return value


_SCALARS = frozenset({str, bool, int, float, type(None)})


def _body(event: Event) -> dict[str, Any]:
    body: dict[str, Any] = {}
    for name in field_names(type(event)):
        value = getattr(event, name)
        body[name] = value if type(value) in _SCALARS else _plain(value)
    return body


def event_to_dict(event: Event) -> dict[str, Any]:
    # Reads the private base attributes directly: this runs for every event written.
    d: dict[str, Any] = {}
    if event._id != Event.INVALID_ID:
        d["id"] = event._id
    if event._timestamp is not None:
        d["timestamp"] = event._timestamp
    if event._source is not None:
        d["source"] = event._source._value_
    d["message"] = event.message
    if event._cause is not None:
        d["cause"] = event._cause
    is_action = isinstance(event, Action)
    if is_action:
        d["action"] = event.action  # type: ignore[attr-defined]
    elif isinstance(event, Observation):
        d["observation"] = event.observation
    else:
        raise ValueError(f"Event must be an Action or an Observation, got {type(event).__name__}")
    if event._tool_call_metadata is not None:
        d["tool_call_metadata"] = event._tool_call_metadata.model_dump()
    if event._llm_metrics is not None:
        d["llm_metrics"] = event._llm_metrics.get()
    body = _body(event)
    if is_action:
        if "security_risk" in body and body["security_risk"] is None:
            del body["security_risk"]
        d["args"] = body
        if event._timeout is not None:
            d["timeout"] = event._timeout
    else:
        d["content"] = body.pop("content", "")
        d["extras"] = body
        if isinstance(event, (CmdOutputObservation, IPythonRunCellObservation)):
            d["success"] = event.success
    return d


_SOURCES = {s.value: s for s in EventSource}


def event_from_dict(data: dict[str, Any]) -> Event:
    if not isinstance(data, dict):
        raise ValueError(f"Unknown event type: expected an object, got {type(data).__name__}")
    evt: Event
    if "action" in data:
        evt = action_from_dict(data)
    elif "observation" in data:
        evt = observation_from_dict(data)
    else:
        raise ValueError(f"Unknown event type: {data!r:.200}")
    # Base attributes go straight into their private slots; one ``get`` per key, as this
    # runs for every event read.
    get = data.get
    event_id = get("id")
    if event_id is not None:
        evt._id = event_id
    timestamp = get("timestamp")
    if type(timestamp) is str:
        evt._timestamp = timestamp
    source = get("source")
    if source is not None:
        evt._source = _SOURCES.get(source) or EventSource(source)
    cause = get("cause")
    if cause is not None:
        evt._cause = cause
    metadata = get("tool_call_metadata")
    if metadata is not None:
        evt._tool_call_metadata = ToolCallMetadata(**metadata)
    if "llm_metrics" in data:  # even null: the reference reads it as empty metrics
        evt._llm_metrics = Metrics.from_dict(data["llm_metrics"])
    return evt


def _strip_keys(value: Any, keys: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {k: _strip_keys(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_strip_keys(v, keys) for v in value]
    return value


def event_to_trajectory(event: Event, include_screenshots: bool = False) -> dict[str, Any]:
    d = event_to_dict(event)
    if "extras" in d:
        keys = _TRAJECTORY_DROPPED_KEYS
        if not include_screenshots:
            keys = keys + _SCREENSHOT_KEYS
        d["extras"] = _strip_keys(d["extras"], keys)
    return d
