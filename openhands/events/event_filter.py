"""Which events a search returns (events.md §8.1), with real datetimes and Unicode-aware text search."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from openhands.events.event import Event
from openhands.events.serialization.event import event_to_dict
from openhands.events.serialization.registry import (
    ACTION_TYPE_TO_CLASS,
    OBSERVATION_TYPE_TO_CLASS,
)


def _to_datetime(value: str | datetime | None) -> datetime | None:
    """Parse a bound; aware datetimes become local naive ones, like event timestamps."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is not None:
        value = value.astimezone().replace(tzinfo=None)
    return value


def event_text(data: dict[str, Any]) -> str:
    """The single-line JSON text that ``query`` is matched against (non-ASCII kept as is)."""
    return json.dumps(data, ensure_ascii=False)


@dataclass
class EventFilter:
    exclude_hidden: bool = False
    query: str | None = None
    include_types: tuple[type[Event], ...] | None = None
    exclude_types: tuple[type[Event], ...] | None = None
    source: str | None = None
    start_date: str | datetime | None = None
    end_date: str | datetime | None = None

    def __post_init__(self) -> None:
        if self.include_types is not None:
            self.include_types = tuple(self.include_types)
        if self.exclude_types is not None:
            self.exclude_types = tuple(self.exclude_types)
        self._start = _to_datetime(self.start_date)
        self._end = _to_datetime(self.end_date)
        self._query = self.query.lower() if self.query else None

    # --- cheap checks on the stored dict, before an event object is built ------------

    def type_may_match(self, data: dict[str, Any]) -> bool:
        """False when the stored dict's type alone rules the event out."""
        if not self.include_types and not self.exclude_types:
            return True
        cls: type | None
        if "action" in data:
            cls = ACTION_TYPE_TO_CLASS.get(data["action"])
        else:
            cls = OBSERVATION_TYPE_TO_CLASS.get(data.get("observation", ""))
        if cls is None:
            return True  # let deserialization report it
        if self.include_types and not issubclass(cls, self.include_types):
            return False
        return not (self.exclude_types and issubclass(cls, self.exclude_types))

    @property
    def page_prefilter(self) -> str | None:
        """A lower-case needle that must occur in the compact page text for any event to match.

        Only usable when the query cannot span the separators that differ between the compact
        storage form and the standard form the query is defined on.
        """
        q = self._query
        if not q or "," in q or ":" in q or q[0].isspace():
            return None
        return q

    # --- the full check ------------------------------------------------------------------

    def include(self, event: Event, data: dict[str, Any] | None = None) -> bool:
        if self.include_types and not isinstance(event, self.include_types):
            return False
        if self.exclude_types and isinstance(event, self.exclude_types):
            return False
        if self.source is not None and (event.source is None or event.source.value != self.source):
            return False
        if (self._start or self._end) and event.timestamp:
            ts = datetime.fromisoformat(event.timestamp)
            if ts.tzinfo is not None:
                ts = ts.astimezone().replace(tzinfo=None)
            if self._start and ts < self._start:
                return False
            if self._end and ts > self._end:
                return False
        if self.exclude_hidden and getattr(event, "hidden", False):
            return False
        if self._query:
            if data is None:
                data = event_to_dict(event)
            if self.page_prefilter is not None:
                # Same verdict as on the standard text (see page_prefilter), much faster.
                text = orjson.dumps(data).decode()
            else:
                text = event_text(data)
            if self._query not in text.lower():
                return False
        return True

    def exclude(self, event: Event) -> bool:
        return not self.include(event)
