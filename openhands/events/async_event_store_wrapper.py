"""Async iteration over an EventStore search, with the file reads done off the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

from openhands.events.event import Event
from openhands.events.event_store import EventStore

_BATCH = 100


def _next_batch(events: Iterator[Event]) -> list[Event]:
    batch = []
    for event in events:
        batch.append(event)
        if len(batch) >= _BATCH:
            break
    return batch


class AsyncEventStoreWrapper:
    """``async for event in AsyncEventStoreWrapper(store, start_id=..., filter=...)``."""

    def __init__(self, event_store: EventStore, *args: Any, **kwargs: Any) -> None:
        self.event_store = event_store
        self.args = args
        self.kwargs = kwargs

    async def __aiter__(self) -> AsyncIterator[Event]:
        events = self.event_store.search_events(*self.args, **self.kwargs)
        while True:
            batch = await asyncio.to_thread(_next_batch, events)
            if not batch:
                return
            for event in batch:
                yield event
