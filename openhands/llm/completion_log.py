"""Writing one JSON file per completion when ``log_completions`` is on."""

from __future__ import annotations

import json
import os
import time
from typing import Any

# Never written to disk: the request itself and credentials.
_LEFT_OUT = frozenset(
    {"messages", "client", "api_key", "aws_access_key_id", "aws_secret_access_key"}
)


def _jsonable(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump()
    return str(value)


def write_completion_log(
    folder: str,
    model: str,
    messages: Any,
    response: Any,
    kwargs: dict[str, Any],
    cost: float,
    fncall_messages: Any = None,
    fncall_response: Any = None,
) -> str:
    """Write ``{model with / → __}-{unix time}.json`` in ``folder``; return its path."""
    os.makedirs(folder, exist_ok=True)
    now = time.time()
    record: dict[str, Any] = {
        "messages": messages,
        "response": response,
        "args": [],
        "kwargs": {k: v for k, v in kwargs.items() if k not in _LEFT_OUT},
        "timestamp": now,
        "cost": cost,
    }
    if fncall_messages is not None:
        record["fncall_messages"] = fncall_messages
        record["fncall_response"] = fncall_response
    path = os.path.join(folder, f"{model.replace('/', '__')}-{now}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(record, f, default=_jsonable)
    return path
