"""A date-filtered search survives a non-ISO timestamp.

events.md §8.1 compares ``timestamp`` with ``start_date``/``end_date`` as plain strings,
which works for any stored string. EventFilter compares real datetimes; a timestamp that is
not ISO 8601 (``event_from_dict`` accepts any string) is compared as text instead, so one
odd event no longer makes every date-filtered search of the conversation raise.
"""

from __future__ import annotations

import json

from openhands.events.event_filter import EventFilter
from openhands.events.event_store import EventStore
from openhands.storage.memory import InMemoryFileStore


def test_date_filter_survives_a_non_iso_timestamp() -> None:
    fs = InMemoryFileStore()
    stamps = ["2025-01-01T10:00:00", "2025-01-01 10:00:00 UTC", "2025-01-03T10:00:00"]
    for i, ts in enumerate(stamps):
        fs.write(
            f"sessions/s/events/{i}.json",
            json.dumps({"id": i, "timestamp": ts, "source": "user", "action": "null"}),
        )
    store = EventStore("s", fs)
    found = [e.id for e in store.search_events(filter=EventFilter(start_date="2025-01-02"))]
    # Whatever is decided for the odd timestamp, the well-formed events are filtered
    # correctly and the search completes.
    assert 0 not in found and 2 in found
