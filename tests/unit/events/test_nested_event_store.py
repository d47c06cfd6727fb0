"""NestedEventStore against a real HTTP server that serves a conversation's `/events`."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from fastapi import FastAPI, Header, HTTPException

from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.event import EventSource
from openhands.events.event_filter import EventFilter
from openhands.events.nested_event_store import NestedEventStore
from openhands.events.stream import EventStream
from openhands.server.services.conversation_events import search_events
from openhands.storage.memory import InMemoryFileStore

KEY = "nested-key"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, list[int]]]:
    store = InMemoryFileStore()
    stream = EventStream("conv", store)
    for i in range(250):
        event = CmdRunAction(f"echo {i}") if i % 5 == 0 else MessageAction(f"message {i}")
        stream.add_event(event, EventSource.USER)
    stream.close()
    page_sizes: list[int] = []
    app = FastAPI()

    @app.get("/api/conversations/{sid}/events")
    def events(
        sid: str,
        start_id: int = 0,
        end_id: int | None = None,
        reverse: bool = False,
        limit: int = 20,
        x_session_api_key: str | None = Header(default=None),
    ) -> dict:
        if x_session_api_key != KEY:
            raise HTTPException(status_code=401)
        if sid != "conv":
            raise HTTPException(status_code=404)
        found, has_more = search_events(store, sid, None, start_id, end_id, reverse, None, limit)
        page_sizes.append(len(found))
        return {"events": found, "has_more": has_more}

    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not uv.started:
        assert time.monotonic() < deadline, "test server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}", page_sizes
    uv.should_exit = True
    thread.join(timeout=5)


def _store(base: str, sid: str = "conv") -> NestedEventStore:
    return NestedEventStore(f"{base}/api/conversations/{sid}", sid, session_api_key=KEY)


def test_pages_through_everything_forward_and_reverse(server) -> None:
    base, pages = server
    pages.clear()
    assert [e.id for e in _store(base).search_events()] == list(range(250))
    assert len(pages) >= 3  # several HTTP pages were needed
    assert [e.id for e in _store(base).search_events(reverse=True)] == list(range(249, -1, -1))


def test_bounds_limit_and_filter_apply_on_the_client(server) -> None:
    base, _ = server
    store = _store(base)
    assert [e.id for e in store.search_events(start_id=10, end_id=14)] == [10, 11, 12, 13, 14]
    assert [e.id for e in store.search_events(start_id=10, end_id=14, reverse=True)] == [
        14,
        13,
        12,
        11,
        10,
    ]
    assert [e.id for e in store.search_events(start_id=3, limit=4)] == [3, 4, 5, 6]
    commands = EventFilter(include_types=(CmdRunAction,))
    assert [e.id for e in store.search_events(filter=commands, limit=3, reverse=True)] == [
        245,
        240,
        235,
    ]


def test_single_event_helpers(server) -> None:
    base, _ = server
    store = _store(base)
    assert store.get_event(42).id == 42
    assert store.get_latest_event().id == 249
    assert store.get_latest_event_id() == 249


def test_unknown_conversation_is_empty(server) -> None:
    base, _ = server
    store = _store(base, "nope")
    assert list(store.search_events()) == []
    with pytest.raises(FileNotFoundError):
        store.get_latest_event_id()
