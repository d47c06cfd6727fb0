"""openhands.io.json: dumps of our objects, loads with repair of model output."""

from __future__ import annotations

import json as std_json
from datetime import date, datetime

import pytest

from openhands.core.exceptions import LLMResponseError
from openhands.events.action import CmdRunAction
from openhands.events.observation import CmdOutputMetadata
from openhands.events.serialization import event_to_dict
from openhands.io import dumps, loads
from openhands.io.json import OpenHandsJSONEncoder
from openhands.llm.metrics import Metrics


def test_dumps_our_objects() -> None:
    action = CmdRunAction(command="ls")
    action._id = 7
    action._timestamp = datetime(2024, 5, 6, 7, 8, 9)  # type: ignore[assignment]
    metrics = Metrics("m")
    metrics.add_cost(0.5)
    metadata = CmdOutputMetadata(exit_code=0, working_dir="/workspace")
    data = {
        "when": datetime(2024, 1, 2, 3, 4, 5),
        "day": date(2024, 1, 2),
        "event": action,
        "metrics": metrics,
        "shell": metadata,
    }

    decoded = std_json.loads(dumps(data))

    assert decoded["when"] == "2024-01-02T03:04:05"
    assert decoded["day"] == "2024-01-02"
    assert decoded["event"]["timestamp"] == "2024-05-06T07:08:09"
    assert decoded["event"]["args"]["command"] == "ls"
    assert decoded["event"] == {**event_to_dict(action), "timestamp": "2024-05-06T07:08:09"}
    assert decoded["metrics"] == metrics.get()
    assert decoded["shell"] == metadata.model_dump()


def test_dumps_passes_options_and_keeps_a_given_encoder() -> None:
    assert dumps({"b": 1, "a": datetime(2024, 1, 1)}, sort_keys=True, indent=1) == (
        '{\n "a": "2024-01-01T00:00:00",\n "b": 1\n}'
    )
    with pytest.raises(TypeError):
        dumps({"a": datetime(2024, 1, 1)}, cls=std_json.JSONEncoder)


def test_unknown_objects_still_fail() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps(object())
    assert isinstance(OpenHandsJSONEncoder(), std_json.JSONEncoder)


def test_loads_strict_json_as_is() -> None:
    assert loads('[1, "two", null]') == [1, "two", None]
    assert loads('{"n": 1.5}', parse_float=str) == {"n": "1.5"}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            'Sure, here it is:\n```json\n{"action": "run", "n": 2}\n```\nDone.',
            {"action": "run", "n": 2},
        ),
        ("{'path': '/tmp/x', 'recursive': True,}", {"path": "/tmp/x", "recursive": True}),
        ('{"a": 1 "b": [1, 2,], // note\n "c": None}', {"a": 1, "b": [1, 2], "c": None}),
        ('{"msg": "He said "hi" to me"}', {"msg": 'He said "hi" to me'}),
        ('first {"x": 1} then {"y": 2}', {"x": 1}),
    ],
    ids=["prose-and-fence", "python-style", "commas-comments-literals", "inner-quotes", "first"],
)
def test_loads_repairs_the_first_object_of_a_reply(reply: str, expected: object) -> None:
    assert loads(reply) == expected


@pytest.mark.parametrize("reply", ["no json here", "[1, 2", "an open { brace", '{"a": 1'])
def test_loads_without_a_complete_object_is_an_llm_response_error(reply: str) -> None:
    with pytest.raises(LLMResponseError, match=r"No valid JSON object found in response\."):
        loads(reply)
