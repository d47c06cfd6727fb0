"""Events: the Action/Observation classes, their JSON, and the EventStream.

``EventStream`` and ``EventStreamSubscriber`` are re-exported from ``openhands.events.stream``
lazily (on first access), so importing an event class does not load the stream and its
storage dependencies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openhands.events.event import Event, EventSource, RecallType

if TYPE_CHECKING:
    from openhands.events.stream import EventStream, EventStreamSubscriber

__all__ = ["Event", "EventSource", "EventStream", "EventStreamSubscriber", "RecallType"]

_LAZY = {"EventStream", "EventStreamSubscriber"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from openhands.events import stream

        return getattr(stream, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
