"""Read side of a conversation's events (events.md §8).

Layout: ``{conv}events/{id}.json`` (one compact JSON object per event) and
``{conv}event_cache/{p}-{p+25}.json`` (a JSON array of 25 events, ``p`` a multiple of 25).
Reads use aligned cache pages where they exist and fall back to the per-event files.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from openhands.events.event import Event, EventSource
from openhands.events.event_filter import EventFilter
from openhands.events.serialization.event import event_from_dict
from openhands.storage.files import FileStore
from openhands.storage.local import LocalFileStore
from openhands.storage.locations import get_conversation_dir
from openhands.utils.shutdown_listener import should_continue

logger = logging.getLogger(__name__)

# Consecutive missing event files tolerated when locating the newest event by probing.
# Our own writer never leaves gaps (a failed write gives its id back); the tolerance only
# matters for stores written by other tools.
_PROBE_GAP_TOLERANCE = 64


def _parse_page_name(name: str, page_size: int) -> int | None:
    """Start id of an aligned cache page file name like ``50-75.json``, else None."""
    stem = name.rsplit("/", 1)[-1]
    if not stem.endswith(".json"):
        return None
    bounds = stem[:-5].split("-")
    if len(bounds) != 2 or not (bounds[0].isdigit() and bounds[1].isdigit()):
        return None
    start, end = int(bounds[0]), int(bounds[1])
    if start % page_size or end != start + page_size:
        return None
    return start


@dataclass
class EventStore:
    sid: str
    file_store: FileStore
    user_id: str | None = None
    cache_size: int = 25
    _cur_id: int | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self._conv_dir = get_conversation_dir(self.sid, self.user_id)
        self._events_dir = f"{self._conv_dir}events/"
        self._cache_dir = f"{self._conv_dir}event_cache/"

    # --- paths ---------------------------------------------------------------------------

    def _event_path(self, event_id: int) -> str:
        return f"{self._events_dir}{event_id}.json"

    def _page_path(self, start: int) -> str:
        return f"{self._cache_dir}{start}-{start + self.cache_size}.json"

    # --- next id -------------------------------------------------------------------------

    @property
    def cur_id(self) -> int:
        if self._cur_id is None:
            self._cur_id = self._find_cur_id()
        return self._cur_id

    @cur_id.setter
    def cur_id(self, value: int) -> None:
        self._cur_id = value

    def _aligned_page_starts(self) -> list[int]:
        try:
            names = self.file_store.list(self._cache_dir)
        except FileNotFoundError:
            return []
        starts = (_parse_page_name(n, self.cache_size) for n in names)
        return sorted(s for s in starts if s is not None)

    def _find_cur_id(self) -> int:
        """max stored id + 1 (0 when empty).

        On local disk this does not list the events directory (which grows without bound):
        it starts after the newest aligned cache page — a page is written only once its 25
        events are on disk — and probes forward for event files.
        """
        if isinstance(self.file_store, LocalFileStore):
            starts = self._aligned_page_starts()
            base = starts[-1] + self.cache_size if starts else 0
            if base == 0:
                return self._cur_id_by_listing()
            events_dir = self.file_store.get_full_path(self._events_dir)
            last = base - 1
            probe = base
            while probe - last <= _PROBE_GAP_TOLERANCE:
                if os.path.exists(f"{events_dir}{probe}.json"):
                    last = probe
                probe += 1
            return last + 1
        return self._cur_id_by_listing()

    def _cur_id_by_listing(self) -> int:
        try:
            names = self.file_store.list(self._events_dir)
        except FileNotFoundError:
            return 0
        highest = -1
        for name in names:
            stem = name.rsplit("/", 1)[-1].split(".", 1)[0]
            try:
                highest = max(highest, int(stem))
            except ValueError:
                continue
        return highest + 1

    # --- raw reads -----------------------------------------------------------------------

    def _read_json(self, path: str) -> Any:
        """Parsed JSON of ``path``; None (with a warning) when the file is damaged."""
        text = self.file_store.read(path)
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            logger.warning("Skipping damaged event file %s", path)
            return None

    def _load_page(self, start: int, prefilter: str | None) -> list[Any] | bool | None:
        """The aligned page at ``start``: its list, None when absent/damaged, False when the
        prefilter proves no event in it can match."""
        try:
            text = self.file_store.read(self._page_path(start))
        except FileNotFoundError:
            return None
        if prefilter is not None and prefilter not in text.lower():
            return False
        try:
            page = orjson.loads(text)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(page, list) or len(page) != self.cache_size:
            return None
        return page

    def _iter_dicts(
        self, first: int, last: int, reverse: bool, prefilter: str | None = None
    ) -> Iterator[dict[str, Any]]:
        """Stored dicts for ids first..last (inclusive), skipping missing/damaged ones.

        Works a cache block at a time: one page read serves up to 25 ids.
        """
        size = self.cache_size
        if last < first:
            return
        block_starts = range(first - first % size, last + 1, size)
        for start in reversed(block_starts) if reverse else block_starts:
            if not should_continue():
                return
            lo, hi = max(first, start), min(last, start + size - 1)
            ids = range(hi, lo - 1, -1) if reverse else range(lo, hi + 1)
            page = self._load_page(start, prefilter)
            if page is False:
                continue
            if page is not None:
                for event_id in ids:
                    data = page[event_id - start]  # type: ignore[index]
                    if type(data) is dict:
                        yield data
                continue
            for event_id in ids:
                try:
                    data = self._read_json(self._event_path(event_id))
                except FileNotFoundError:
                    continue
                if type(data) is dict:
                    yield data

    # --- public API ----------------------------------------------------------------------

    def search_events(
        self,
        start_id: int = 0,
        end_id: int | None = None,
        reverse: bool = False,
        filter: EventFilter | None = None,
        limit: int | None = None,
    ) -> Iterator[Event]:
        """Events with ``start_id <= id <= end_id`` (both inclusive), optionally newest first.

        ``limit`` counts matching events; 0/None means no limit.
        """
        last = self.cur_id - 1 if end_id is None else end_id
        prefilter = filter.page_prefilter if filter is not None else None
        matched = 0
        for data in self._iter_dicts(max(start_id, 0), last, reverse, prefilter):
            if filter is not None and not filter.type_may_match(data):
                continue
            try:
                event = event_from_dict(data)
            except (ValueError, KeyError, TypeError) as e:
                logger.warning("Skipping unreadable event %s: %s", data.get("id"), e)
                continue
            if filter is not None and not filter.include(event, data):
                continue
            yield event
            matched += 1
            if limit and matched >= limit:
                return

    def get_event(self, id: int) -> Event:
        data = self._read_json(self._event_path(id))
        if data is None:
            raise FileNotFoundError(f"Event {id} is damaged")
        return event_from_dict(data)

    def get_latest_event(self) -> Event:
        return self.get_event(self.cur_id - 1)

    def get_latest_event_id(self) -> int:
        return self.cur_id - 1

    # --- deprecated helpers kept for old callers -----------------------------------------

    def filtered_events_by_source(self, source: EventSource) -> Iterator[Event]:
        for event in self.search_events():
            if event.source == source:
                yield event

    def get_events(
        self,
        start_id: int = 0,
        end_id: int | None = None,
        reverse: bool = False,
        filter_out_type: tuple[type[Event], ...] | None = None,
        filter_hidden: bool = False,
    ) -> Iterator[Event]:
        yield from self.search_events(
            start_id,
            end_id,
            reverse,
            EventFilter(exclude_types=filter_out_type, exclude_hidden=filter_hidden),
        )

    def get_matching_events(
        self,
        query: str | None = None,
        event_types: tuple[type[Event], ...] | None = None,
        source: str | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
        start_id: int = 0,
        limit: int = 100,
        reverse: bool = False,
    ) -> list[Event]:
        if limit < 1 or limit > 100:
            raise ValueError("Limit must be between 1 and 100")
        event_filter = EventFilter(
            query=query,
            include_types=event_types,
            source=source,
            start_date=start_date,
            end_date=end_date,
        )
        return list(
            self.search_events(start_id=start_id, reverse=reverse, filter=event_filter, limit=limit)
        )
