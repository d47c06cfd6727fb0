"""EventStore.search_events and EventFilter (events.md §8)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from openhands.events.action import Action, CmdRunAction, MessageAction
from openhands.events.async_event_store_wrapper import AsyncEventStoreWrapper
from openhands.events.event import EventSource
from openhands.events.event_filter import EventFilter
from openhands.events.event_store import EventStore
from openhands.events.observation import CmdOutputObservation, NullObservation, Observation
from openhands.events.serialization import event_to_dict
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore


def _write(fs, sid: str, data: dict) -> None:
    fs.write(f"sessions/{sid}/events/{data['id']}.json", json.dumps(data))


def _event(event, id: int, source: str, ts: str | None):
    event.id = id
    event.source = source
    if ts:
        event.timestamp = ts
    return event_to_dict(event)


@pytest.fixture(params=["local", "memory"])
def store(request, tmp_path) -> EventStore:
    fs = LocalFileStore(str(tmp_path)) if request.param == "local" else InMemoryFileStore()
    rows = [
        _event(MessageAction("hello world"), 0, "user", "2025-01-01T09:00:00"),
        _event(CmdRunAction("ls", hidden=True), 1, "agent", "2025-01-01T10:00:00"),
        _event(CmdOutputObservation("a.txt", command="ls"), 2, "agent", "2025-01-01T11:00:00"),
        _event(MessageAction("Grüße, café ☕"), 3, "agent", "2025-01-02T09:00:00"),
        _event(NullObservation(""), 4, "environment", None),
    ]
    rows[4].pop("source")  # an event without a source
    for row in rows:
        _write(fs, "s", row)
    return EventStore("s", fs)


def ids(events) -> list[int]:
    return [e.id for e in events]


def test_ranges_are_inclusive_and_reverse(store) -> None:
    assert ids(store.search_events()) == [0, 1, 2, 3, 4]
    assert ids(store.search_events(start_id=1, end_id=3)) == [1, 2, 3]
    assert ids(store.search_events(start_id=1, end_id=3, reverse=True)) == [3, 2, 1]
    assert ids(store.search_events(reverse=True)) == [4, 3, 2, 1, 0]
    assert ids(store.search_events(start_id=10)) == []


def test_limit_counts_matches(store) -> None:
    only_messages = EventFilter(include_types=(MessageAction,))
    assert ids(store.search_events(filter=only_messages, limit=1, reverse=True)) == [3]
    assert ids(store.search_events(limit=0)) == [0, 1, 2, 3, 4]
    assert ids(store.search_events(limit=None)) == [0, 1, 2, 3, 4]
    assert ids(store.search_events(limit=-5)) == [0]


def test_missing_files_are_skipped(store) -> None:
    store.file_store.delete("sessions/s/events/2.json")
    assert ids(store.search_events()) == [0, 1, 3, 4]


def test_type_filters_match_subclasses(store) -> None:
    assert ids(store.search_events(filter=EventFilter(include_types=(Action,)))) == [0, 1, 3]
    assert ids(store.search_events(filter=EventFilter(exclude_types=(Observation,)))) == [0, 1, 3]
    both = EventFilter(include_types=(Action,), exclude_types=(CmdRunAction,))
    assert ids(store.search_events(filter=both)) == [0, 3]


def test_source_filter_excludes_events_without_source(store) -> None:
    assert ids(store.search_events(filter=EventFilter(source="agent"))) == [1, 2, 3]
    assert ids(store.search_events(filter=EventFilter(source="environment"))) == []


def test_date_filters_are_real_datetimes(store) -> None:
    start = EventFilter(start_date="2025-01-01T10:00:00")
    assert ids(store.search_events(filter=start)) == [1, 2, 3, 4]
    end = EventFilter(end_date=datetime(2025, 1, 1, 10, 0))
    assert ids(store.search_events(filter=end)) == [0, 1, 4]
    # A date-only bound is midnight: a later event that day is excluded, as in the reference.
    assert ids(store.search_events(filter=EventFilter(end_date="2025-01-01"))) == [4]
    # Fractional seconds compare by value, not by string length.
    frac = EventFilter(start_date="2025-01-01T10:00:00.000001")
    assert ids(store.search_events(filter=frac)) == [2, 3, 4]
    aware = datetime(2025, 1, 1, 10, 0).astimezone(timezone(timedelta(hours=5)))
    assert ids(store.search_events(filter=EventFilter(start_date=aware))) == [1, 2, 3, 4]


def test_exclude_hidden(store) -> None:
    assert ids(store.search_events(filter=EventFilter(exclude_hidden=True))) == [0, 2, 3, 4]


def test_query_is_case_insensitive_and_unicode(store) -> None:
    assert ids(store.search_events(filter=EventFilter(query="HELLO"))) == [0]
    assert ids(store.search_events(filter=EventFilter(query="café"))) == [3]
    assert ids(store.search_events(filter=EventFilter(query="GRÜSSE"))) == []
    assert ids(store.search_events(filter=EventFilter(query="grüße"))) == [3]
    assert ids(store.search_events(filter=EventFilter(query="☕"))) == [3]
    # The query runs over the JSON text, keys included.
    assert ids(store.search_events(filter=EventFilter(query='"command": "ls"'))) == [1, 2]


def test_query_over_cache_pages(tmp_path) -> None:
    from openhands.events.stream import EventStream

    fs = LocalFileStore(str(tmp_path))
    stream = EventStream("p", fs)
    for i in range(60):
        stream.add_event(MessageAction("needle" if i in (7, 51) else f"hay {i}"), EventSource.USER)
    stream.close()
    store = EventStore("p", fs)
    assert ids(store.search_events(filter=EventFilter(query="NEEDLE"))) == [7, 51]
    assert ids(
        store.search_events(
            filter=EventFilter(query="needle", source="user"), reverse=True, limit=1
        )
    ) == [51]
    assert ids(store.search_events(filter=EventFilter(query=': "needle"'))) == [7, 51]


def test_query_lowercases_unicode_like_str_lower(store) -> None:
    # The Kelvin sign lower-cases to an ASCII "k": the text is not ASCII, so the query is
    # matched on str.lower() of the whole text.
    store.file_store.write(
        "sessions/s/events/5.json",
        json.dumps(_event(MessageAction("\u212aelvin scale"), 5, "user", None)),
    )
    store._cur_id = None
    assert ids(store.search_events(filter=EventFilter(query="KELVIN"))) == [5]
    assert ids(store.search_events(filter=EventFilter(query="kelvin scale"))) == [5]


def test_query_over_reference_written_pages(tmp_path) -> None:
    # Pages written by the reference use json.dumps: spaces after separators and \u
    # escapes for non-ASCII text. The page text then cannot rule a page out.
    fs = LocalFileStore(str(tmp_path))
    rows = [
        _event(MessageAction("café crème" if i == 30 else f"plain {i}"), i, "user", None)
        for i in range(50)
    ]
    for row in rows:
        _write(fs, "r", row)
    for start in (0, 25):
        fs.write(
            f"sessions/r/event_cache/{start}-{start + 25}.json",
            json.dumps(rows[start : start + 25]),
        )
    assert "\\u00e9" in fs.read("sessions/r/event_cache/25-50.json")
    store = EventStore("r", fs)
    assert ids(store.search_events(filter=EventFilter(query="CAFÉ"))) == [30]
    assert ids(store.search_events(filter=EventFilter(query="plain 4"))) == [4, *range(40, 50)]


def test_get_event_and_latest(store) -> None:
    assert store.get_event(3).content == "Grüße, café ☕"
    assert store.get_latest_event_id() == 4
    assert store.get_latest_event().id == 4
    with pytest.raises(FileNotFoundError):
        store.get_event(99)


def test_deprecated_helpers(store) -> None:
    assert ids(store.get_events(filter_out_type=(Observation,), filter_hidden=True)) == [0, 3]
    assert ids(store.filtered_events_by_source(EventSource.USER)) == [0]
    assert ids(store.get_matching_events(query="ls", event_types=(CmdRunAction,))) == [1]
    for bad in (0, 101):
        with pytest.raises(ValueError):
            store.get_matching_events(limit=bad)


def test_cur_id_from_listing_with_gaps() -> None:
    fs = InMemoryFileStore()
    for i in (0, 1, 7):
        _write(fs, "g", _event(NullObservation(""), i, "agent", None))
    fs.write("sessions/g/events/notes.txt", "x")
    assert EventStore("g", fs).cur_id == 8


def test_cur_id_on_disk_starts_after_the_newest_aligned_page(tmp_path) -> None:
    fs = LocalFileStore(str(tmp_path))
    for start in range(0, 1025, 25):  # names cross digit lengths: 75-100, 975-1000, ...
        fs.write(f"sessions/d/event_cache/{start}-{start + 25}.json", "[]")
    fs.write("sessions/d/event_cache/1003-1028.json", "[]")  # unaligned: never used
    fs.write("sessions/d/event_cache/notes.txt", "x")
    for i in range(1025, 1031):
        _write(fs, "d", _event(NullObservation(""), i, "agent", None))
    store = EventStore("d", fs)
    assert store._newest_page_start(fs) == 1000
    assert store.cur_id == 1031


async def test_async_wrapper_yields_in_order(store) -> None:
    got = [e.id async for e in AsyncEventStoreWrapper(store, start_id=1, reverse=False)]
    assert got == [1, 2, 3, 4]
    rev = [e.id async for e in AsyncEventStoreWrapper(store, reverse=True, limit=2)]
    assert rev == [4, 3]
