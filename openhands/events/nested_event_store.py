"""An EventStore that reads another server's events over HTTP (events.md §10)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx

from openhands.events.event import Event
from openhands.events.event_filter import EventFilter
from openhands.events.serialization.event import event_from_dict

_PAGE_LIMIT = 100


@dataclass
class NestedEventStore:
    """Events of a conversation served by another server's ``GET {base_url}/events``.

    Each page is one module-level ``httpx.get(url, headers=...)`` call (the call that tests and
    extensions patch), with the query in the URL: ``start_id``, ``reverse``, then ``end_id``
    (reverse paging only) and ``limit`` when a limit was asked for. ``timeout`` (seconds) is
    passed on only when set; otherwise httpx's default applies.
    """

    base_url: str
    sid: str
    user_id: str | None = None
    session_api_key: str | None = None
    timeout: float | None = None

    def _headers(self) -> dict[str, str]:
        return {"X-Session-API-Key": self.session_api_key} if self.session_api_key else {}

    def _fetch(self, params: dict[str, Any]) -> dict[str, Any] | None:
        url = f"{self.base_url}/events?{urlencode(params)}"
        if self.timeout is None:
            response = httpx.get(url, headers=self._headers())
        else:
            response = httpx.get(url, headers=self._headers(), timeout=self.timeout)
        if response.status_code == 404:
            return None
        response.raise_for_status()
        page: dict[str, Any] = response.json()
        return page

    def search_events(
        self,
        start_id: int = 0,
        end_id: int | None = None,
        reverse: bool = False,
        filter: EventFilter | None = None,
        limit: int | None = None,
    ) -> Iterator[Event]:
        matched = 0
        cursor_start, cursor_end = start_id, None
        while True:
            params: dict[str, Any] = {"start_id": cursor_start, "reverse": reverse}
            if cursor_end is not None:
                params["end_id"] = cursor_end
            if limit:
                params["limit"] = min(_PAGE_LIMIT, max(1, limit - matched))
            page = self._fetch(params)
            if not page:
                return
            events = page.get("events", [])
            for data in events:
                event = event_from_dict(data)
                if reverse:
                    cursor_end = event.id - 1
                    if end_id is not None and event.id > end_id:
                        continue
                else:
                    cursor_start = event.id + 1
                if filter is None or not filter.exclude(event):
                    yield event
                    matched += 1
                    if limit and matched >= limit:
                        return
                if not reverse and end_id is not None and event.id >= end_id:
                    return
            if not page.get("has_more") or not events:
                return

    def get_event(self, id: int) -> Event:
        for event in self.search_events(start_id=id, limit=1):
            return event
        raise FileNotFoundError("no_event")

    def get_latest_event(self) -> Event:
        for event in self.search_events(reverse=True, limit=1):
            return event
        raise FileNotFoundError("no_event")

    def get_latest_event_id(self) -> int:
        return self.get_latest_event().id
