"""Read side of a conversation's events (events.md §8).

Layout: ``{conv}events/{id}.json`` (one compact JSON object per event) and
``{conv}event_cache/{p}-{p+25}.json`` (a JSON array of 25 events, ``p`` a multiple of 25).
Reads use aligned cache pages where they exist and fall back to the per-event files.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from openhands.core.exceptions import LLMMalformedActionError
from openhands.events import json_codec
from openhands.events.event import Event, EventSource
from openhands.events.event_filter import EventFilter
from openhands.events.serialization.event import event_from_dict
from openhands.storage.files import FileStore
from openhands.storage.locations import get_conversation_dir, get_conversation_event_filename
from openhands.utils.shutdown_listener import should_continue

# What rebuilding a stored event raises when it is not one we can read (an unknown type, a
# missing field, a malformed action): the event is skipped with a warning, whatever its kind.
_UNREADABLE = (ValueError, KeyError, TypeError, LLMMalformedActionError)

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


def _page_may_contain(raw: bytes, needle: str) -> bool:
    """False only when no event of the page can contain ``needle`` (lower case) in the
    lower-cased compact JSON text that a query is matched against.

    That text is orjson's serialization of the event's dict, so only a page in orjson's
    compact form (our writer's) is exactly the events' texts joined by commas. A page in
    another form (the reference writes spaces after separators, \\u escapes for non-ASCII
    characters, other float forms) proves nothing.
    """
    if not raw.startswith(b'[{"id":') or raw.startswith(b'[{"id": '):
        return True
    if raw.isascii():
        # bytes.lower() equals str.lower() on ASCII, and a non-ASCII needle cannot occur.
        return needle.isascii() and needle.encode() in raw.lower()
    return needle in raw.decode().lower()


def _warn_unreadable(data: Any, error: Exception) -> None:
    if type(data) is dict:  # damaged entries (None) were already reported when read
        logger.warning("Skipping unreadable event %s: %s", data.get("id"), error)


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

    # The reference's names for the two paths (kept for callers and tests that use them).

    def _get_filename_for_id(self, id: int, user_id: str | None) -> str:
        return get_conversation_event_filename(self.sid, id, user_id)

    def _get_filename_for_cache(self, start: int, end: int) -> str:
        return f"{self._cache_dir}{start}-{end}.json"

    # --- next id -------------------------------------------------------------------------

    @property
    def cur_id(self) -> int:
        if self._cur_id is None:
            self._cur_id = self._find_cur_id()
        return self._cur_id

    @cur_id.setter
    def cur_id(self, value: int) -> None:
        self._cur_id = value

    def _newest_page_start(self, file_store: FileStore) -> int | None:
        """Start id of the newest aligned cache page, None without one."""
        try:
            names = file_store.list_names(self._cache_dir)
        except FileNotFoundError:
            return None
        # Longest name first, ties in reverse text order: for "{start}-{end}.json" names
        # that is descending start order (both numbers only grow), so only the first few
        # names need parsing.
        names.sort(reverse=True)
        names.sort(key=len, reverse=True)
        for name in names:
            start = _parse_page_name(name, self.cache_size)
            if start is not None:
                return start
        return None

    def _find_cur_id(self) -> int:
        """max stored id + 1 (0 when empty).

        The newest aligned cache page tells where to look: a page is written only once its
        25 events are on disk, so only the events after it are to be found, and a store
        that can check files one by one cheaply (the local disk) need not list the events
        directory, which grows without bound (``FileStore.sequence_end``).
        """
        newest = self._newest_page_start(self.file_store)
        if newest is None:
            return self._cur_id_by_listing()
        return self.file_store.sequence_end(
            self._events_dir, ".json", newest + self.cache_size, _PROBE_GAP_TOLERANCE
        )

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
        raw = self.file_store.read_bytes(path)
        try:
            return json_codec.loads(raw)
        except ValueError:
            logger.warning("Skipping damaged event file %s", path)
            return None

    def _load_page(self, start: int, needle: str | None) -> list[Any] | None:
        """The aligned page at ``start``: its list, None when absent/damaged, and an empty
        list when ``needle`` (a filter's page prefilter) proves that no event in it matches."""
        try:
            raw = self.file_store.read_bytes(self._page_path(start))
        except FileNotFoundError:
            return None
        if needle is not None and not _page_may_contain(raw, needle):
            return []
        try:
            page = json_codec.loads(raw)
        except ValueError:
            return None
        if not isinstance(page, list) or len(page) != self.cache_size:
            return None
        return page

    def _read_event_files(self, ids: range) -> Iterator[Any]:
        """Parsed per-event files, lazily; missing ones are skipped, damaged ones are None."""
        for event_id in ids:
            try:
                yield self._read_json(self._event_path(event_id))
            except FileNotFoundError:
                continue

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

        ``limit`` counts matching events; 0/None means no limit. Works a cache block at a
        time: one page read serves up to 25 ids, and blocks without a page fall back to the
        per-event files. Missing and damaged events are skipped.
        """
        first = max(start_id, 0)
        last = self.cur_id - 1 if end_id is None else end_id
        if last < first:
            return
        size = self.cache_size
        prefilter = filter.page_prefilter if filter is not None else None
        matched = 0
        block_starts = range(first - first % size, last + 1, size)
        for start in reversed(block_starts) if reverse else block_starts:
            if not should_continue():
                return
            lo, hi = max(first, start), min(last, start + size - 1)
            page = self._load_page(start, prefilter)
            dicts: Iterable[Any]
            if page is None:
                ids = range(hi, lo - 1, -1) if reverse else range(lo, hi + 1)
                dicts = self._read_event_files(ids)
            else:
                dicts = page[lo - start : hi - start + 1]
                if reverse:
                    dicts.reverse()
            if filter is None and not limit:
                # Plain iteration (replays, full reads): no per-event checks.
                for data in dicts:
                    try:
                        event = event_from_dict(data)
                    except _UNREADABLE as e:
                        _warn_unreadable(data, e)
                        continue
                    yield event
                continue
            for data in dicts:
                if type(data) is not dict:
                    continue
                # Checks that need only the stored dict come first: an Event is built only
                # for a dict that can still match.
                if filter is not None and not (
                    filter.type_may_match(data) and filter.text_matches(data)
                ):
                    continue
                try:
                    event = event_from_dict(data)
                except _UNREADABLE as e:
                    _warn_unreadable(data, e)
                    continue
                if filter is not None and not filter.fields_match(event):
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
