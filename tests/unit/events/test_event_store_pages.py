"""EventStore reading a conversation another instance wrote (events.md §7.3, §8, §10).

Sixty events are written by an EventStream, so the store holds two full cache pages
(0-25, 25-50) and ten loose event files (50-59). Every search is checked against a plain
Python model of the same events, across page boundaries, in both directions, with limits
and filters, and with pages or files missing, damaged or misaligned.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from openhands.events.action import Action, CmdRunAction, MessageAction
from openhands.events.async_event_store_wrapper import AsyncEventStoreWrapper
from openhands.events.event import EventSource
from openhands.events.event_filter import EventFilter
from openhands.events.event_store import EventStore
from openhands.events.observation import CmdOutputObservation, Observation
from openhands.events.serialization import event_to_dict
from openhands.events.stream import EventStream
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore
from openhands.utils import shutdown_listener

N = 60
SID = "conv"


@dataclass(frozen=True)
class Row:
    """What we wrote for one id: enough to predict every search."""

    id: int
    kind: type
    source: str
    text: str


def _make(i: int):
    if i % 3 == 0:
        return MessageAction(f"message {i}"), EventSource.USER
    if i % 3 == 1:
        return CmdRunAction(f"echo {i}", hidden=i % 2 == 0), EventSource.AGENT
    return CmdOutputObservation(f"output {i}", command=f"echo {i - 1}"), EventSource.ENVIRONMENT


def _text(event) -> str:
    return getattr(event, "content", None) or event.command


def _write_conversation(fs, sid: str = SID, user_id: str | None = None) -> list[Row]:
    stream = EventStream(sid, fs, user_id=user_id)
    rows = []
    for i in range(N):
        event, source = _make(i)
        stream.add_event(event, source)
        rows.append(Row(event.id, type(event), source.value, _text(event)))
    stream.close()
    return rows


@pytest.fixture(params=["local", "memory"])
def fs(request, tmp_path):
    return LocalFileStore(str(tmp_path)) if request.param == "local" else InMemoryFileStore()


@pytest.fixture
def rows(fs) -> list[Row]:
    return _write_conversation(fs)


def _ids(events) -> list[int]:
    return [e.id for e in events]


def _summary(events) -> list[tuple[int, type, str, str]]:
    return [(e.id, type(e), e.source.value, _text(e)) for e in events]


def _expected(rows, ids) -> list[tuple[int, type, str, str]]:
    by_id = {r.id: r for r in rows}
    return [(i, by_id[i].kind, by_id[i].source, by_id[i].text) for i in ids]


def _page(fs, start: int) -> str:
    return f"sessions/{SID}/event_cache/{start}-{start + 25}.json"


def _event_file(i: int) -> str:
    return f"sessions/{SID}/events/{i}.json"


def test_layout_written_by_the_stream(fs, rows) -> None:
    assert [r.id for r in rows] == list(range(N))
    for start in (0, 25):
        page = json.loads(fs.read(_page(fs, start)))
        # A page is the same 25 dicts as the event files, in id order.
        assert page == [json.loads(fs.read(_event_file(i))) for i in range(start, start + 25)]
    with pytest.raises(FileNotFoundError):
        fs.read(_page(fs, 50))


@pytest.mark.parametrize(
    ("start_id", "end_id"),
    [(0, None), (20, 55), (24, 25), (25, 49), (49, 50), (55, None), (30, 30), (-3, 2), (58, 200)],
)
@pytest.mark.parametrize("reverse", [False, True])
def test_ranges_across_pages_and_loose_files(fs, rows, start_id, end_id, reverse) -> None:
    store = EventStore(SID, fs)
    last = N - 1 if end_id is None else end_id
    expected = [i for i in range(max(start_id, 0), last + 1) if i < N]
    if reverse:
        expected.reverse()
    got = store.search_events(start_id=start_id, end_id=end_id, reverse=reverse)
    assert _summary(got) == _expected(rows, expected)


def test_empty_and_inverted_ranges(fs, rows) -> None:
    store = EventStore(SID, fs)
    assert _ids(store.search_events(start_id=40, end_id=39)) == []
    assert _ids(store.search_events(start_id=40, end_id=10, reverse=True)) == []
    assert _ids(store.search_events(start_id=N)) == []


@pytest.mark.parametrize("reverse", [False, True])
def test_limit_counts_matches_across_pages(fs, rows, reverse) -> None:
    store = EventStore(SID, fs)
    window = list(range(10, 56))
    if reverse:
        window.reverse()
    assert _ids(store.search_events(10, 55, reverse=reverse, limit=30)) == window[:30]
    only_obs = EventFilter(include_types=(Observation,))
    matching = [i for i in window if rows[i].kind is CmdOutputObservation]
    got = store.search_events(10, 55, reverse=reverse, filter=only_obs, limit=9)
    assert _ids(got) == matching[:9]


FILTERS = {
    "types": (
        EventFilter(include_types=(Action,), exclude_types=(CmdRunAction,)),
        lambda r: r.kind is MessageAction,
    ),
    "source": (EventFilter(source="environment"), lambda r: r.source == "environment"),
    # Only observation contents say "output N" (their commands say "echo N-1").
    "query": (EventFilter(query="OUTPUT 4"), lambda r: "output 4" in r.text),
    "hidden": (
        EventFilter(exclude_hidden=True),
        lambda r: not (r.kind is CmdRunAction and r.id % 2 == 0),
    ),
    "combined": (
        EventFilter(source="agent", query="echo 5", exclude_hidden=True),
        lambda r: r.source == "agent" and "echo 5" in r.text and r.id % 2 == 1,
    ),
}


@pytest.mark.parametrize("name", FILTERS)
@pytest.mark.parametrize("reverse", [False, True])
def test_filters_across_pages(fs, rows, name, reverse) -> None:
    event_filter, predicate = FILTERS[name]
    expected = [r.id for r in rows if predicate(r)]
    assert expected  # every filter must select something, or the test proves nothing
    assert len(expected) < N
    if reverse:
        expected.reverse()
    got = EventStore(SID, fs).search_events(filter=event_filter, reverse=reverse)
    assert _summary(got) == _expected(rows, expected)


def test_date_filter_over_stream_timestamps(fs, rows) -> None:
    store = EventStore(SID, fs)
    stamps = [e.timestamp for e in store.search_events()]
    assert len(stamps) == N
    middle = stamps[30]
    later = [i for i, ts in enumerate(stamps) if ts >= middle]
    earlier = [i for i, ts in enumerate(stamps) if ts <= middle]
    assert _ids(store.search_events(filter=EventFilter(start_date=middle))) == later
    assert _ids(store.search_events(filter=EventFilter(end_date=middle))) == earlier


def test_a_missing_page_falls_back_to_event_files(fs, rows) -> None:
    fs.delete(_page(fs, 0))
    store = EventStore(SID, fs)
    assert _summary(store.search_events()) == _expected(rows, range(N))
    assert _summary(store.search_events(reverse=True, end_id=30)) == _expected(
        rows, range(30, -1, -1)
    )


def test_a_page_serves_ids_whose_event_file_is_gone(fs, rows) -> None:
    fs.delete(_event_file(7))
    fs.delete(_event_file(55))  # no page covers 50-59
    store = EventStore(SID, fs)
    assert 7 in _ids(store.search_events())
    assert _ids(store.search_events()) == [i for i in range(N) if i != 55]
    with pytest.raises(FileNotFoundError):
        store.get_event(7)  # get_event never reads the cache
    # Without the page either, the event is simply skipped.
    fs.delete(_page(fs, 0))
    assert _ids(EventStore(SID, fs).search_events(end_id=10)) == [i for i in range(11) if i != 7]


@pytest.mark.parametrize(
    "bad_page",
    ["[{not json", "[]", json.dumps([{"id": 0}]), json.dumps({"0": {}})],
    ids=["garbage", "empty", "short", "object"],
)
def test_an_unusable_page_falls_back_to_event_files(fs, rows, bad_page) -> None:
    fs.write(_page(fs, 25), bad_page)
    store = EventStore(SID, fs)
    assert _summary(store.search_events(start_id=20, end_id=55)) == _expected(rows, range(20, 56))
    assert _summary(store.search_events(filter=EventFilter(query="message 27"))) == _expected(
        rows, [27]
    )


def test_unaligned_pages_are_never_read(fs, rows) -> None:
    # A page the reference writes after reopening at an unaligned id (e.g. 52-77) is
    # not where a reader looks: reads come from the event files.
    bogus = [json.loads(fs.read(_event_file(i))) for i in range(50, 75) if i < N]
    for entry in bogus:
        if "args" in entry:
            entry["args"]["content" if entry["action"] == "message" else "command"] = "tampered"
        else:
            entry["content"] = "tampered"
    fs.write(f"sessions/{SID}/event_cache/52-77.json", json.dumps(bogus))
    fs.write(f"sessions/{SID}/event_cache/50-100.json", json.dumps(bogus))
    store = EventStore(SID, fs)
    assert _summary(store.search_events(start_id=50)) == _expected(rows, range(50, N))


def test_page_contents_are_what_search_returns(fs, rows) -> None:
    # Proof that reads really use the page: change one entry of it.
    page = json.loads(fs.read(_page(fs, 25)))
    page[5]["args"]["content"] = "rewritten in the page"  # id 30, a MessageAction
    fs.write(_page(fs, 25), json.dumps(page))
    store = EventStore(SID, fs)
    assert next(store.search_events(start_id=30, end_id=30)).content == "rewritten in the page"
    assert _ids(store.search_events(filter=EventFilter(query="REWRITTEN"))) == [30]
    assert store.get_event(30).content == "message 30"


def test_reference_written_loose_files_are_read(fs) -> None:
    # Files as the reference writes them: json.dumps with spaces, \u escapes, no pages,
    # under a user's directory.
    base = "users/u-1/conversations/c-9/events/"
    for i in range(3):
        fs.write(
            f"{base}{i}.json",
            json.dumps(
                {
                    "id": i,
                    "timestamp": f"2025-01-15T10:00:0{i}",
                    "source": "user",
                    "message": f"héllo {i}",
                    "action": "message",
                    "args": {
                        "content": f"héllo {i}",
                        "file_urls": [],
                        "image_urls": [],
                        "wait_for_response": False,
                        "security_risk": -1,
                    },
                }
            ),
        )
    store = EventStore("c-9", fs, user_id="u-1")
    assert store.cur_id == 3 and store.get_latest_event_id() == 2
    assert [e.content for e in store.search_events(reverse=True)] == [
        "héllo 2",
        "héllo 1",
        "héllo 0",
    ]
    assert store.get_latest_event().content == "héllo 2"
    # The same sid without the user id is another conversation.
    assert list(EventStore("c-9", fs).search_events()) == []


def test_user_scoped_stream_pages(fs) -> None:
    rows = _write_conversation(fs, sid="c", user_id="u")
    page = json.loads(fs.read("users/u/conversations/c/event_cache/25-50.json"))
    assert [e["id"] for e in page] == list(range(25, 50))
    store = EventStore("c", fs, user_id="u")
    assert _summary(store.search_events(start_id=20, end_id=30)) == _expected(rows, range(20, 31))


def test_a_store_opened_while_another_instance_writes(fs) -> None:
    writer = EventStream(SID, fs)
    for i in range(10):
        writer.add_event(MessageAction(f"early {i}"), EventSource.USER)
    reader = EventStore(SID, fs)
    assert reader.get_latest_event_id() == 9
    for i in range(10, 30):
        writer.add_event(MessageAction(f"late {i}"), EventSource.USER)
    # cur_id is computed once per instance: without an end_id the reader stops at what
    # it saw first; an explicit end_id reaches the newer events (and the new page).
    assert _ids(reader.search_events()) == list(range(10))
    assert _ids(reader.search_events(start_id=8, end_id=29)) == list(range(8, 30))
    fresh = EventStore(SID, fs)
    assert fresh.get_latest_event_id() == 29
    assert fresh.get_latest_event().content == "late 29"
    writer.close()


def test_latest_event_with_gaps(fs) -> None:
    for i in (0, 4, 11):
        event = MessageAction(f"m{i}")
        event.id = i
        event.source = "user"
        fs.write(_event_file(i), json.dumps(event_to_dict(event)))
    store = EventStore(SID, fs)
    assert store.cur_id == 12 and store.get_latest_event().content == "m11"
    assert _ids(store.search_events()) == [0, 4, 11]
    assert _ids(store.search_events(reverse=True, limit=2)) == [11, 4]


def test_get_matching_events_returns_a_bounded_list(fs, rows) -> None:
    store = EventStore(SID, fs)
    result = store.get_matching_events(event_types=(MessageAction,), limit=100)
    assert isinstance(result, list)
    assert _ids(result) == [r.id for r in rows if r.kind is MessageAction]
    newest = store.get_matching_events(source="environment", start_id=30, reverse=True, limit=1)
    assert _ids(newest) == [59]
    first = store.get_matching_events(query="echo", start_id=30, limit=1)
    assert _ids(first) == [31]


def test_search_stops_when_the_process_shuts_down(fs, rows) -> None:
    store = EventStore(SID, fs)
    try:
        shutdown_listener.request_shutdown()
        assert _ids(store.search_events()) == []
        shutdown_listener.reset()
        got = []
        for event in store.search_events():
            got.append(event.id)
            if event.id == 0:
                shutdown_listener.request_shutdown()
        # It stops at a block boundary at the latest; never reads the whole store.
        assert got == list(range(len(got))) and 1 <= len(got) <= 25
    finally:
        shutdown_listener.reset()
    assert _ids(store.search_events()) == list(range(N))


async def test_async_wrapper_yields_everything_in_batches(fs) -> None:
    stream = EventStream("many", fs)
    for i in range(230):
        stream.add_event(MessageAction(f"m{i}"), EventSource.USER)
    stream.close()
    store = EventStore("many", fs)
    got = [e.id async for e in AsyncEventStoreWrapper(store)]
    assert got == list(range(230))
    rev = [e.id async for e in AsyncEventStoreWrapper(store, 5, 160, True)]
    assert rev == list(range(160, 4, -1))
    only = EventFilter(query="m22")
    assert [e.content async for e in AsyncEventStoreWrapper(store, filter=only)] == [
        "m22",
        *[f"m{i}" for i in range(220, 230)],
    ]


def test_cur_id_sees_files_past_the_newest_page_across_a_gap(fs, rows) -> None:
    # Ids may have gaps (the reference consumes an id when a write fails): the next id is
    # still one past the highest stored one.
    stray = MessageAction("written after a gap")
    stray.id = 80
    stray.source = "user"
    fs.write(_event_file(80), json.dumps(event_to_dict(stray)))
    store = EventStore(SID, fs)
    assert store.cur_id == 81 and store.get_latest_event().content == "written after a gap"
    assert _ids(store.search_events(start_id=55)) == [55, 56, 57, 58, 59, 80]
    assert _ids(store.search_events(reverse=True, limit=2)) == [80, 59]
    stream = EventStream(SID, fs)
    nxt = MessageAction("next")
    stream.add_event(nxt, EventSource.USER)
    stream.close()
    assert nxt.id == 81
