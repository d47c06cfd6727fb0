"""EventStream.add_event (events.md §9.1): ids, timestamps, what lands on disk, reopening."""

from __future__ import annotations

import json
import logging
import threading
from datetime import datetime

import pytest

import openhands.events
from openhands.events import stream as stream_module
from openhands.events.action import MessageAction, NullAction
from openhands.events.event import Event, EventSource
from openhands.events.event_filter import EventFilter
from openhands.events.event_store import EventStore
from openhands.events.observation import NullObservation
from openhands.events.serialization import event_from_dict, event_to_dict
from openhands.events.stream import EventStream
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore


@pytest.fixture(params=["local", "memory"])
def fs(request, tmp_path):
    return LocalFileStore(str(tmp_path)) if request.param == "local" else InMemoryFileStore()


def _stored(fs, i: int, sid: str = "sid") -> dict:
    return json.loads(fs.read(f"sessions/{sid}/events/{i}.json"))


def test_concurrent_writers_get_unique_ids_bound_to_their_own_event(fs) -> None:
    stream = EventStream("sid", fs)
    writers, per_writer = 4, 150
    added: dict[str, Event] = {}
    start = threading.Barrier(writers)
    errors: list[BaseException] = []

    def write(w: int) -> None:
        try:
            start.wait()
            for i in range(per_writer):
                event = MessageAction(f"w{w}-{i}")
                stream.add_event(event, EventSource.USER)
                added[event.content] = event
        except BaseException as e:  # surfaced below; a thread cannot fail the test itself
            errors.append(e)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stream.close()
    assert errors == []
    total = writers * per_writer
    assert sorted(e.id for e in added.values()) == list(range(total))
    for content, event in added.items():
        assert _stored(fs, event.id)["args"]["content"] == content
    # Within one writer, ids follow its own order.
    for w in range(writers):
        ids = [added[f"w{w}-{i}"].id for i in range(per_writer)]
        assert ids == sorted(ids)
    # Every full page exists and holds exactly the event files' dicts.
    for page_start in range(0, total, 25):
        page = json.loads(fs.read(f"sessions/sid/event_cache/{page_start}-{page_start + 25}.json"))
        assert page == [_stored(fs, i) for i in range(page_start, page_start + 25)]
    reopened = EventStream("sid", fs)
    assert reopened.cur_id == total
    reopened.close()


class _FixedClock(datetime):
    value = datetime(2025, 7, 18, 17, 1, 36, 799608)

    @classmethod
    def now(cls, tz=None):
        return cls.value


@pytest.mark.parametrize(
    ("moment", "text"),
    [
        (datetime(2025, 7, 18, 17, 1, 36, 799608), "2025-07-18T17:01:36.799608"),
        (datetime(2025, 7, 18, 17, 1, 36), "2025-07-18T17:01:36"),  # no fraction when 0 µs
    ],
)
def test_timestamp_is_local_naive_iso(fs, monkeypatch, moment, text) -> None:
    monkeypatch.setattr(_FixedClock, "value", moment)
    monkeypatch.setattr(stream_module, "datetime", _FixedClock)
    stream = EventStream("sid", fs)
    event = NullObservation("")
    stream.add_event(event, EventSource.ENVIRONMENT)
    stream.close()
    assert event.timestamp == text
    assert _stored(fs, 0) == {
        "id": 0,
        "timestamp": text,
        "source": "environment",
        "message": "No observation",
        "observation": "null",
        "content": "",
        "extras": {},
    }


def test_real_timestamps_are_naive_and_parse(fs) -> None:
    stream = EventStream("sid", fs)
    for _ in range(3):
        stream.add_event(NullAction(), EventSource.AGENT)
    stream.close()
    for i in range(3):
        parsed = datetime.fromisoformat(_stored(fs, i)["timestamp"])
        assert parsed.tzinfo is None


def test_source_may_be_given_as_a_string(fs) -> None:
    stream = EventStream("sid", fs)
    event = MessageAction("hi")
    stream.add_event(event, "user")
    stream.close()
    assert event.source is EventSource.USER
    assert _stored(fs, 0)["source"] == "user"


def test_an_event_with_an_id_is_refused_and_costs_no_id(fs) -> None:
    stream = EventStream("sid", fs)
    stream.add_event(MessageAction("first"), EventSource.USER)
    loaded = event_from_dict({"id": 0, "action": "message", "args": {"content": "again"}})
    with pytest.raises(ValueError, match="already has an ID"):
        stream.add_event(loaded, EventSource.USER)
    nxt = MessageAction("second")
    stream.add_event(nxt, EventSource.USER)
    stream.close()
    assert nxt.id == 1
    assert _stored(fs, 1)["args"]["content"] == "second"


def test_the_callers_object_is_stamped_and_matches_the_file(fs) -> None:
    stream = EventStream("sid", fs)
    event = MessageAction("hello", image_urls=["a.png"])
    event.response_id = "resp-1"
    stream.add_event(event, EventSource.USER)
    stream.close()
    assert (event.id, event.source) == (0, EventSource.USER) and event.timestamp
    assert event.response_id == "resp-1"  # kept on the caller's object, never written
    assert _stored(fs, 0) == event_to_dict(event)
    assert "resp-1" not in fs.read("sessions/sid/events/0.json")


def test_a_large_event_is_written_with_a_warning(fs, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="openhands.events.stream")
    big = "x" * 1_100_000
    stream = EventStream("sid", fs)
    stream.add_event(MessageAction(big), EventSource.USER)
    stream.add_event(MessageAction("small"), EventSource.USER)
    stream.close()
    assert _stored(fs, 0)["args"]["content"] == big
    warnings = [r for r in caplog.records if r.name == "openhands.events.stream"]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING


def test_reopening_after_a_lost_event_file(fs) -> None:
    stream = EventStream("sid", fs)
    for i in range(30):
        stream.add_event(MessageAction(f"m{i}"), EventSource.USER)
    stream.close()
    fs.delete("sessions/sid/events/27.json")
    reopened = EventStream("sid", fs)
    assert reopened.cur_id == 30
    for i in range(30, 55):
        reopened.add_event(MessageAction(f"m{i}"), EventSource.USER)
    reopened.close()
    expected = [i for i in range(55) if i != 27]
    events = list(EventStore("sid", fs).search_events())
    assert [e.id for e in events] == expected
    assert [e.content for e in events] == [f"m{i}" for i in expected]
    # Whatever pages were (or were not) written for the block with the hole, reads that
    # use them agree with the event files.
    store = EventStore("sid", fs)
    for i in (24, 25, 26, 28, 49):
        only = EventFilter(query=f'"m{i}"')
        assert [e.id for e in store.search_events(filter=only)] == [i]
    assert [e.id for e in store.search_events(filter=EventFilter(query='"m27"'))] == []


def test_reopening_a_missing_or_empty_conversation(fs) -> None:
    assert EventStream("never", fs).cur_id == 0
    stream = EventStream("sid", fs, user_id="u")
    assert stream.get_latest_event_id() == -1
    stream.add_event(MessageAction("x"), EventSource.USER)
    stream.close()
    assert json.loads(fs.read("users/u/conversations/sid/events/0.json"))["id"] == 0
    assert EventStream("sid", fs).cur_id == 0  # a different conversation without the user


def test_stream_is_importable_from_the_package_lazily() -> None:
    assert openhands.events.EventStream is EventStream
    assert openhands.events.EventStreamSubscriber is stream_module.EventStreamSubscriber
    with pytest.raises(AttributeError):
        openhands.events.NoSuchThing  # noqa: B018
