"""Secret masking in the EventStream (events.md §9.2): which secrets, which keys, when.

Where this implementation is stricter than the reference on purpose (it also masks
``message`` and strings inside lists), test_stream.py pins that; these tests cover the
rest of the rules: replacing vs merging the secret map, masking only at add time,
overlapping secrets, protected top-level keys, nested objects.
"""

from __future__ import annotations

import json
import threading

import pytest

from openhands.events.action import CmdRunAction, MCPAction, MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.event_store import EventStore
from openhands.events.observation import CmdOutputObservation
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.events.tool import ToolCallMetadata
from openhands.llm.metrics import Metrics
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore

HIDDEN = "<secret_hidden>"


@pytest.fixture(params=["local", "memory"])
def fs(request, tmp_path):
    return LocalFileStore(str(tmp_path)) if request.param == "local" else InMemoryFileStore()


def _stored(fs, i: int) -> dict:
    return json.loads(fs.read(f"sessions/sid/events/{i}.json"))


def _say(stream: EventStream, text: str) -> dict:
    event = MessageAction(text)
    stream.add_event(event, EventSource.USER)
    return _stored(stream.file_store, event.id)


def test_set_replaces_and_update_merges(fs) -> None:
    stream = EventStream("sid", fs)
    stream.set_secrets({"A": "alpha-value"})
    assert _say(stream, "alpha-value beta-value")["args"]["content"] == f"{HIDDEN} beta-value"
    stream.set_secrets({"B": "beta-value"})
    assert _say(stream, "alpha-value beta-value")["args"]["content"] == f"alpha-value {HIDDEN}"
    stream.update_secrets({"A": "alpha-value"})
    assert _say(stream, "alpha-value beta-value")["args"]["content"] == f"{HIDDEN} {HIDDEN}"
    stream.update_secrets({"A": "gamma-value"})  # same name, new value: the old one is free
    assert _say(stream, "alpha-value gamma-value")["args"]["content"] == f"alpha-value {HIDDEN}"
    stream.set_secrets({})
    assert _say(stream, "gamma-value")["args"]["content"] == "gamma-value"
    stream.close()


def test_set_secrets_keeps_a_copy(fs) -> None:
    stream = EventStream("sid", fs)
    secrets = {"A": "alpha-value"}
    stream.set_secrets(secrets)
    secrets["A"] = "changed-later"
    assert _say(stream, "alpha-value")["args"]["content"] == HIDDEN
    stream.close()


def test_masking_is_not_retroactive(fs) -> None:
    stream = EventStream("sid", fs)
    _say(stream, "token-123 before")
    stream.set_secrets({"T": "token-123"})
    _say(stream, "token-123 after")
    stream.close()
    store = EventStore("sid", fs)
    assert store.get_event(0).content == "token-123 before"
    assert store.get_event(1).content == f"{HIDDEN} after"


def test_the_longer_of_two_overlapping_secrets_is_masked_whole(fs) -> None:
    stream = EventStream("sid", fs)
    stream.set_secrets({"short": "abc123", "long": "abc123-extended"})
    assert _say(stream, "x abc123-extended y abc123 z")["args"]["content"] == (
        f"x {HIDDEN} y {HIDDEN} z"
    )
    stream.close()


def test_secrets_are_matched_literally(fs) -> None:
    stream = EventStream("sid", fs)
    stream.set_secrets({"re": "a.b*c"})
    assert _say(stream, "axbbc a.b*c")["args"]["content"] == f"axbbc {HIDDEN}"
    stream.close()


def test_identity_keys_are_protected_at_the_top_level_only(fs) -> None:
    stream = EventStream("sid", fs)
    # Each of these values also occurs in a protected top-level key.
    stream.set_secrets({"s": "user", "a": "call_tool_mcp"})
    action = MCPAction(
        "call_tool_mcp",
        arguments={"timestamp": "user", "id": "user", "deep": {"x": "user"}},
    )
    stream.add_event(action, EventSource.USER)
    stream.close()
    stored = _stored(fs, 0)
    assert stored["source"] == "user" and stored["action"] == "call_tool_mcp"
    assert stored["id"] == 0 and stored["timestamp"] == action.timestamp
    assert stored["args"]["name"] == HIDDEN
    arguments = stored["args"]["arguments"]
    assert arguments["timestamp"] == HIDDEN and arguments["id"] == HIDDEN
    assert arguments["deep"] == {"x": HIDDEN}


def test_tool_call_metadata_and_metrics_are_masked(fs) -> None:
    stream = EventStream("sid", fs)
    stream.set_secrets({"k": "sk-live-42"})
    action = CmdRunAction("ls")
    action.tool_call_metadata = ToolCallMetadata(
        function_name="execute_bash",
        tool_call_id="call_1",
        model_response={"id": "r1", "usage": {"note": "key sk-live-42"}},
        total_calls_in_response=1,
    )
    action.llm_metrics = Metrics("sk-live-42")  # a model name in a nested dict
    stream.add_event(action, EventSource.AGENT)
    stream.close()
    stored = _stored(fs, 0)
    assert stored["tool_call_metadata"]["model_response"]["usage"] == {"note": f"key {HIDDEN}"}
    assert stored["llm_metrics"]["accumulated_token_usage"]["model"] == HIDDEN
    assert "sk-live-42" not in fs.read("sessions/sid/events/0.json")


def test_observation_content_and_extras_are_masked(fs) -> None:
    stream = EventStream("sid", fs)
    stream.set_secrets({"p": "pa55word"})
    obs = CmdOutputObservation(
        "login with pa55word", command="echo pa55word", metadata={"working_dir": "/pa55word"}
    )
    stream.add_event(obs, EventSource.AGENT)
    stream.close()
    stored = _stored(fs, 0)
    assert stored["content"] == f"login with {HIDDEN}"
    assert stored["extras"]["command"] == f"echo {HIDDEN}"
    assert stored["extras"]["metadata"]["working_dir"] == f"/{HIDDEN}"
    assert obs.content == "login with pa55word"  # the caller's object is untouched


def test_subscribers_and_disk_agree(fs) -> None:
    stream = EventStream("sid", fs)
    stream.set_secrets({"t": "tok-9"})
    got: list[Event] = []
    done = threading.Event()

    def collect(event: Event) -> None:
        got.append(event)
        if len(got) == 3:
            done.set()

    stream.subscribe(EventStreamSubscriber.SERVER, collect, "s")
    for text in ("tok-9", "no secret", "a tok-9 b tok-9"):
        stream.add_event(MessageAction(text), EventSource.USER)
    assert done.wait(30)
    stream.close()
    assert [e.content for e in got] == [HIDDEN, "no secret", f"a {HIDDEN} b {HIDDEN}"]
    store = EventStore("sid", fs)
    assert [e.content for e in store.search_events()] == [e.content for e in got]
