"""Rebuilding an agent's history from the event stream (agent.md §8.10).

The history is never persisted: it is the stream's events from ``start_id`` to ``end_id``
minus bookkeeping and hidden events. For the parent agent, whatever happened inside a
delegation (the events strictly between an AgentDelegateAction and its matching
AgentDelegateObservation) belongs to the delegate and is left out.
"""

from __future__ import annotations

from collections.abc import Sequence

from openhands.controller.policies import NON_HISTORY_TYPES
from openhands.events.action import AgentDelegateAction
from openhands.events.event import Event
from openhands.events.event_filter import EventFilter
from openhands.events.event_store import EventStore
from openhands.events.observation import AgentDelegateObservation

HISTORY_FILTER = EventFilter(exclude_hidden=True, exclude_types=NON_HISTORY_TYPES)


def load_history(
    store: EventStore, start_id: int, end_id: int, include_delegate_events: bool = False
) -> list[Event]:
    """The agent's events in ``start_id..end_id`` (inclusive; ``end_id < 0``: up to the latest)."""
    start = max(start_id, 0)
    end = end_id if end_id >= 0 else store.get_latest_event_id()
    if end < start:
        return []
    events = list(store.search_events(start_id=start, end_id=end, filter=HISTORY_FILTER))
    if include_delegate_events:
        return events
    return drop_delegate_inner_events(events)


def drop_delegate_inner_events(events: Sequence[Event]) -> list[Event]:
    """Remove the events strictly inside each delegate action/observation pair (nesting-aware)."""
    open_delegations: list[int] = []
    inside: set[int] = set()
    for index, event in enumerate(events):
        if isinstance(event, AgentDelegateAction):
            open_delegations.append(index)
        elif isinstance(event, AgentDelegateObservation) and open_delegations:
            start = open_delegations.pop()
            inside.update(range(start + 1, index))
    return [event for index, event in enumerate(events) if index not in inside]
