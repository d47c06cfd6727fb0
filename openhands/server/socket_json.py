"""The JSON codec of Socket.IO packets: orjson behind the two functions python-socketio
calls (``AsyncServer(json=...)`` takes any module with ``dumps`` and ``loads``).

A replay sends every stored event of a conversation as its own packet; the standard
library encoder is several times slower than orjson there. The output is the same JSON
text up to whitespace and escaping (orjson writes UTF-8 instead of ``\\uXXXX`` escapes).
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps(obj: Any, **kwargs: Any) -> str:
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # what orjson refuses (e.g. integers over 64 bits) json may take
        return json.dumps(obj, **kwargs)


def loads(text: str | bytes, **kwargs: Any) -> Any:
    return orjson.loads(text)
