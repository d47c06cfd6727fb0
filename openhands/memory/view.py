"""The history as the agent sees it once past condensations are applied."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

from openhands.events.action.agent import CondensationAction, CondensationRequestAction
from openhands.events.event import Event
from openhands.events.observation.agent import AgentCondensationObservation


@dataclass
class View:
    """A read-only sequence of events: the history minus forgotten events, plus a summary.

    ``unhandled_condensation_request`` tells a condenser that someone (the agent or the
    controller after a context-window error) asked for a condensation that has not
    happened yet.
    """

    events: list[Event] = field(default_factory=list)
    unhandled_condensation_request: bool = False
    forgotten_event_ids: set[int] = field(default_factory=set)

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    @overload
    def __getitem__(self, key: int) -> Event: ...

    @overload
    def __getitem__(self, key: slice) -> list[Event]: ...

    def __getitem__(self, key: int | slice) -> Event | list[Event]:
        return self.events[key]

    @staticmethod
    def from_events(history: Sequence[Event]) -> View:
        forgotten = forgotten_ids(history)
        kept: list[Event] = [event for event in history if event.id not in forgotten]

        summary_action = latest_summary(history)
        if summary_action is not None:
            assert summary_action.summary is not None
            assert summary_action.summary_offset is not None
            kept.insert(
                summary_action.summary_offset,
                AgentCondensationObservation(content=summary_action.summary),
            )

        return View(
            events=kept,
            unhandled_condensation_request=has_unhandled_request(history),
            forgotten_event_ids=forgotten,
        )


def forgotten_ids(history: Sequence[Event]) -> set[int]:
    """Ids dropped by every condensation, plus the condensation events themselves."""
    forgotten: set[int] = set()
    for event in history:
        if isinstance(event, CondensationAction):
            forgotten.update(event.forgotten)
            forgotten.add(event.id)
        elif isinstance(event, CondensationRequestAction):
            forgotten.add(event.id)
    return forgotten


def latest_summary(history: Sequence[Event]) -> CondensationAction | None:
    """The most recent condensation that carries a summary and where to put it."""
    for event in reversed(history):
        if (
            isinstance(event, CondensationAction)
            and event.summary is not None
            and event.summary_offset is not None
        ):
            return event
    return None


def has_unhandled_request(history: Sequence[Event]) -> bool:
    """True when a condensation request is more recent than every condensation."""
    for event in reversed(history):
        if isinstance(event, CondensationAction):
            return False
        if isinstance(event, CondensationRequestAction):
            return True
    return False
