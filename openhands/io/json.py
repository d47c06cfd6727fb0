"""JSON in and out for logs, trajectories and model replies.

``dumps`` encodes what the standard encoder refuses: datetimes (ISO 8601), events (their
wire dict), ``Metrics`` (``get()``) and pydantic models such as LiteLLM's ``ModelResponse``
or ``CmdOutputMetadata`` (``model_dump()``). ``loads`` parses strict JSON, and otherwise
repairs the first ``{...}`` object in the text (models wrap JSON in prose and get quotes,
commas and literals wrong), raising ``LLMResponseError`` when there is nothing to repair.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel

from openhands.core.exceptions import LLMResponseError
from openhands.events.event import Event
from openhands.events.serialization.event import event_to_dict
from openhands.io.repair import repair_first_object
from openhands.llm.metrics import Metrics

NO_OBJECT_MESSAGE = "No valid JSON object found in response."
INVALID_OBJECT_MESSAGE = (
    "Invalid JSON in response. Please make sure the response is a valid JSON object."
)


class OpenHandsJSONEncoder(json.JSONEncoder):
    """The standard encoder plus datetimes, events, metrics and pydantic models."""

    def default(self, o: Any) -> Any:
        if isinstance(o, datetime | date):
            return o.isoformat()
        if isinstance(o, Event):
            return event_to_dict(o)
        if isinstance(o, Metrics):
            return o.get()
        if isinstance(o, BaseModel):
            return o.model_dump()
        return super().default(o)


# Encoding without options is the common case (event files, logs): one shared, stateless
# encoder avoids building a new one per call.
_DEFAULT_ENCODER = OpenHandsJSONEncoder()


def dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps`` with :class:`OpenHandsJSONEncoder` unless ``cls`` is given."""
    if not kwargs:
        return _DEFAULT_ENCODER.encode(obj)
    kwargs.setdefault("cls", OpenHandsJSONEncoder)
    return json.dumps(obj, **kwargs)


def loads(json_str: str | bytes | bytearray, **kwargs: Any) -> Any:
    """Strict ``json.loads``; on a syntax error, the first ``{...}`` object, repaired."""
    try:
        return json.loads(json_str, **kwargs)
    except json.JSONDecodeError:
        pass
    text = json_str if isinstance(json_str, str) else bytes(json_str).decode("utf-8", "replace")
    repaired = repair_first_object(text)
    if repaired is None:
        raise LLMResponseError(NO_OBJECT_MESSAGE)
    try:
        return json.loads(repaired, **kwargs)
    except (json.JSONDecodeError, ValueError, TypeError) as exc:
        raise LLMResponseError(INVALID_OBJECT_MESSAGE) from exc
