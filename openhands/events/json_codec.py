"""The JSON text of stored events: orjson (fast), with the standard library behind it for
what orjson refuses but JSON allows.

An event may hold an integer beyond 64 bits or a dict with non-string keys (tool arguments
and outputs come from the LLM); orjson refuses to write both, and a file written by another
implementation may hold ``NaN``, which orjson refuses to read. The standard ``json`` module
takes all of them, as 0.59 did; it only runs when orjson has refused.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps(value: Any) -> bytes:
    """Compact JSON bytes; non-string keys become strings, as ``json`` makes them."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # e.g. an integer beyond 64 bits
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def loads(raw: bytes | str) -> Any:
    """Parsed JSON; raises ``ValueError`` (``orjson.JSONDecodeError`` is one) when damaged."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)  # NaN/Infinity; truly damaged text raises here as well
