"""Search skips stored events it cannot rebuild, actions and observations alike.

An unknown observation type raises KeyError, an unknown action type LLMMalformedActionError;
the second used to abort the whole search, so every later event was unreachable (replay,
history, the HTTP events route). Both are skipped with a warning now.
"""

from __future__ import annotations

import json

from openhands.events.event_store import EventStore
from openhands.storage.memory import InMemoryFileStore


def test_unreadable_actions_are_skipped_like_unreadable_observations() -> None:
    fs = InMemoryFileStore()
    rows = [
        {"id": 0, "action": "null"},
        {"id": 1, "observation": "chat", "content": "no class for this type"},
        {"id": 2, "action": "pause"},  # a type value with no class (events.md §1)
        {"id": 3, "action": "null"},
    ]
    for row in rows:
        fs.write(f"sessions/s/events/{row['id']}.json", json.dumps(row))
    assert [e.id for e in EventStore("s", fs).search_events()] == [0, 3]
