"""Events holding JSON values orjson refuses are stored as the reference stores them.

The stream writes with orjson, the reference with the standard ``json`` module, and the two
disagree on values an LLM can produce: an integer beyond 64 bits (e.g. a token amount in MCP
tool arguments) and a dict key that is not a string (``outputs={1: ...}``, stored as
``"1"``). Both used to make ``add_event`` raise, failing the agent's step.
"""

from __future__ import annotations

import json

import pytest

from openhands.events.action import AgentFinishAction, MCPAction
from openhands.events.event import EventSource
from openhands.events.stream import EventStream
from openhands.storage.memory import InMemoryFileStore

BIG = 10**30


@pytest.mark.parametrize(
    ("event", "expected_args_part"),
    [
        (MCPAction("transfer", arguments={"amount_wei": BIG}), {"arguments": {"amount_wei": BIG}}),
        (AgentFinishAction(outputs={1: "first"}), {"outputs": {"1": "first"}}),
    ],
    ids=["int-beyond-64-bits", "non-string-key"],
)
def test_add_event_stores_what_json_can_store(event, expected_args_part) -> None:
    fs = InMemoryFileStore()
    stream = EventStream("sid", fs)
    try:
        stream.add_event(event, EventSource.AGENT)
    finally:
        stream.close()
    stored = json.loads(fs.read("sessions/sid/events/0.json"))
    for key, value in expected_args_part.items():
        assert stored["args"][key] == value
