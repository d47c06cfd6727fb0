"""Which events a search returns (events.md §8.1), with real datetimes and Unicode-aware text search.

The store checks a filter in two steps so that it builds Event objects only for events that
can match: ``type_may_match`` and ``text_matches`` look at the stored dict, then
``fields_match`` checks the event itself. ``include`` is both steps together.
"""

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
        # Everything below is derived once: the fields are not meant to change afterwards.
        self.include_types = _type_tuple(self.include_types)
        self.exclude_types = _type_tuple(self.exclude_types)
        self._start = _to_datetime(self.start_date)
        self._end = _to_datetime(self.end_date)
        self._query = self.query.lower() if self.query else None
        q = self._query
        # The query is defined on the standard JSON text (", " and ": " separators). A query
        # without "," or ":" and not starting with white space cannot tell that text from
        # orjson's compact one (the only difference is the space after a separator), so the
        # much faster compact text gives the same verdict.
        self._compact_ok = q is not None and "," not in q and ":" not in q and not q[0].isspace()
        # For pure-ASCII text, bytes.lower() equals str.lower(); a non-ASCII query can never
        # occur in lower-cased ASCII text.
        self._query_bytes = q.encode() if q and q.isascii() else None

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
        """A lower-case needle that must occur in the compact page text for any event to match."""
        return self._query if self._compact_ok else None

    def text_matches(self, data: dict[str, Any]) -> bool:
        """The ``query`` check (true without a query): a case-insensitive substring test on
        the JSON text of ``data``, keys included."""
        query = self._query
        if not query:
            return True
        if not self._compact_ok:
            return query in event_text(data).lower()
        raw = orjson.dumps(data)
        if raw.isascii():
            return self._query_bytes is not None and self._query_bytes in raw.lower()
        return query in raw.decode().lower()

    # --- checks on the event object --------------------------------------------------

    def fields_match(self, event: Event) -> bool:
        """Every check except ``query``."""
        if self.include_types and not isinstance(event, self.include_types):
            return False
        if self.exclude_types and isinstance(event, self.exclude_types):
            return False
        if self.source is not None and (event.source is None or event.source.value != self.source):
            return False
        if (self._start or self._end) and event.timestamp and not self._in_dates(event.timestamp):
            return False
        return not (self.exclude_hidden and getattr(event, "hidden", False))

    def _in_dates(self, timestamp: str) -> bool:
        try:
            ts = datetime.fromisoformat(timestamp)
        except ValueError:
            # Not ISO 8601 (another writer's format): compared as text, as 0.59 compares
            # every timestamp, instead of failing the whole search.
            return (self.start_date is None or timestamp >= str(self.start_date)) and (
                self.end_date is None or timestamp <= str(self.end_date)
            )
        if ts.tzinfo is not None:
            ts = ts.astimezone().replace(tzinfo=None)
        if self._start and ts < self._start:
            return False
        return not (self._end and ts > self._end)

    def include(self, event: Event, data: dict[str, Any] | None = None) -> bool:
        """``data``, when given, is the event's stored dict; the query is matched on it."""
        if not self.fields_match(event):
            return False
        if self._query is None:
            return True
        return self.text_matches(data if data is not None else event_to_dict(event))

    def exclude(self, event: Event) -> bool:
        return not self.include(event)


def _type_tuple(
    types: tuple[type[Event], ...] | type[Event] | None,
) -> tuple[type[Event], ...] | None:
    """A tuple of event classes; a single class is taken as one (``isinstance`` accepts
    both, and callers written for the reference pass ``event_types=(SomeAction)``)."""
    if types is None:
        return None
    if isinstance(types, type):
        return (types,)
    return tuple(types)
