"""Write side of a conversation's events: ids, persistence, secret masking, pub/sub (events.md §9).

Design notes (where we differ from the reference, on purpose):
- Ids are assigned, the event file is written and delivery is queued under one lock, so
  files appear in id order and every subscriber sees events in id order even when many
  threads add events at once. A write that fails gives its id back: the store never has
  gaps, and a reopened stream continues exactly after the newest event on disk.
- Event files are written with ``FileStore.write_new``: a process killed at any instant
  leaves no half-written event, a reader never sees an event file before it is complete,
  and an existing file is never replaced. The local store writes an unnamed file in the
  events directory and names it with ``linkat`` (the same system calls as the scratch file
  plus rename used before, without the scratch directory or debris). Creating
  ``{id}.json`` with O_EXCL and writing into it would save one system call but break the
  second promise: while the file is being written, a fresh EventStore (the server's replay
  uses one) would count the id in ``cur_id``, skip the still empty file as damaged, and the
  live delivery would then drop the event as already replayed. A crash between open and
  write would also leave an empty newest file that a reopened stream would have to tell
  apart from real damage. Either way the cost of a new file is mostly the kernel's inode
  allocation, which no write scheme avoids (see bench/event_stream.py).
- An id whose file exists although the stream did not count it (another tool wrote it, or a
  run of more than 64 missing files hid it from the reopen probe) is never overwritten: the
  stream lists the directory and continues after the highest id there.
- The write page is re-filled from disk on reopen, so cache pages stay aligned to 25.
- No dispatcher hop: add_event puts the masked dict straight on each callback's queue;
  the callback's own worker thread rebuilds its private copy of the event from it, and
  lingers briefly before blocking so that a burst of events costs one wake-up, not one
  per event.
- Secret masking also covers ``message`` and strings inside lists (the reference leaks both).
  The serialized text is searched for the secrets first, so an event without any is not
  walked and serialized twice.
- What is stored (event files, cache pages) and what goes to clients (the ``server``
  subscriber: socket ``oh_event``, metadata) is masked. The reference also hands the masked
  copy to the runtime, which then runs ``echo <secret_hidden>`` instead of the command the
  agent wrote; here the subscribers in ``UNMASKED_SUBSCRIBERS`` (the runtime) get a copy
  rebuilt from the unmasked dict. The agent's own view (controller, memory) stays masked, so
  secret values that show up in outputs are not sent back to the LLM.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable
from datetime import datetime
from enum import Enum
from typing import Any, NamedTuple

import orjson

from openhands.events import json_codec
from openhands.events.event import Event, EventSource
from openhands.events.event_store import EventStore
from openhands.events.serialization.event import event_from_dict, event_to_dict
from openhands.storage.files import FileStore

logger = logging.getLogger(__name__)

SECRET_PLACEHOLDER = "<secret_hidden>"
# Top-level keys that identify an event; never masked.
_PROTECTED_KEYS = frozenset({"timestamp", "id", "source", "cause", "action", "observation"})
_LARGE_EVENT_BYTES = 1_000_000
# How long a callback's worker waits for more events before it blocks (see _Callback._run).
# It bounds the extra delivery latency of an event that arrives right after another one.
_LINGER_S = 0.0001


class EventStreamSubscriber(str, Enum):
    AGENT_CONTROLLER = "agent_controller"
    RESOLVER = "openhands_resolver"
    SERVER = "server"
    RUNTIME = "runtime"
    MEMORY = "memory"
    MAIN = "main"
    TEST = "test"


# Subscribers that must see what the agent really asked for: the runtime executes it.
UNMASKED_SUBSCRIBERS = frozenset({EventStreamSubscriber.RUNTIME.value})

_STOP = object()


class _Masking(NamedTuple):
    values: tuple[str, ...]  # secret values, longest first
    needles: tuple[bytes, ...]  # the same, as they appear in JSON text


def _json_form(secret: str) -> bytes:
    """How ``secret`` looks inside a JSON string. orjson escapes character by character, so
    the text of a string that contains the secret contains this."""
    try:
        return orjson.dumps(secret)[1:-1]
    except orjson.JSONEncodeError:  # e.g. a lone surrogate; b"" makes every event masked
        return b""


class _Callback:
    """One registered callback, run by its own worker thread that owns an asyncio loop.

    The worker takes events from a FIFO queue one at a time, so the callback sees them in
    the order they were queued, and a slow callback delays nobody but itself.
    """

    def __init__(self, subscriber_id: str, callback_id: str, callback: Callable[[Event], Any]):
        self.callback = callback
        self.subscriber_id = subscriber_id
        self.callback_id = callback_id
        self.unmasked = subscriber_id in UNMASKED_SUBSCRIBERS
        self.dropped = False
        self.queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.thread = threading.Thread(
            target=self._run, name=f"event-{subscriber_id}-{callback_id}", daemon=True
        )
        self.thread.start()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            while True:
                data = self.queue.get()
                if data is _STOP:
                    return
                if self.dropped:
                    continue
                try:
                    # Each callback gets its own copy, rebuilt from the masked dict (the
                    # unmasked one for the runtime): no subscriber sees another one's
                    # mutations, and only the runtime sees secret values.
                    self.callback(event_from_dict(data))
                except Exception:
                    logger.exception(
                        "Error in event callback %s for subscriber %s",
                        self.callback_id,
                        self.subscriber_id,
                    )
                if self.queue.empty():
                    # Linger a moment before blocking again: the next events of a burst then
                    # queue up while this thread sleeps and are taken in one go, instead of
                    # the writer waking this thread (and handing it the GIL) for each event.
                    time.sleep(_LINGER_S)
        finally:
            for task in asyncio.all_tasks(loop):
                task.cancel()
            loop.close()

    def stop(self, drop_pending: bool) -> None:
        """Let queued deliveries run (unsubscribe) or drop them (close), then end the thread."""
        self.dropped = drop_pending
        self.queue.put(_STOP)


class EventStream(EventStore):
    def __init__(self, sid: str, file_store: FileStore, user_id: str | None = None) -> None:
        super().__init__(sid, file_store, user_id)
        self._lock = threading.Lock()
        self._subscribers: dict[str, dict[str, _Callback]] = {}
        self._delivery_order: list[_Callback] = []
        self._secrets: dict[str, str] = {}
        self._masking = _Masking((), ())
        self._closed = False
        # JSON text of the events of the current (incomplete) cache page, by position.
        self._page_start = 0
        self._page: list[bytes | None] = []
        self._load_write_page()

    # --- setup ---------------------------------------------------------------------------

    def _load_write_page(self) -> None:
        """Refill the partly written page from disk so that later pages stay aligned."""
        cur = self.cur_id
        self._page_start = cur - cur % self.cache_size
        self._page = []
        for event_id in range(self._page_start, cur):
            try:
                text = self.file_store.read(self._event_path(event_id))
                self._page.append(json_codec.dumps(json_codec.loads(text)))
            except (FileNotFoundError, ValueError):
                self._page.append(None)  # this block can never form a complete page

    # --- secrets -------------------------------------------------------------------------

    @property
    def secrets(self) -> dict[str, str]:
        """The secret map (name -> value). Assigning a new map is the same as ``set_secrets``."""
        return self._secrets

    @secrets.setter
    def secrets(self, secrets: dict[str, str]) -> None:
        self.set_secrets(secrets)

    def set_secrets(self, secrets: dict[str, str]) -> None:
        self._secrets = dict(secrets)
        self._refresh_secret_values()

    def update_secrets(self, secrets: dict[str, str]) -> None:
        self._secrets = {**self._secrets, **secrets}
        self._refresh_secret_values()

    def _refresh_secret_values(self) -> None:
        # Longest first, so a secret that contains another is replaced whole; empty values
        # are skipped (they would put the marker between every character).
        values = tuple(sorted((v for v in self._secrets.values() if v), key=len, reverse=True))
        needles = tuple(_json_form(v) for v in values)
        self._masking = _Masking(values, needles)  # one assignment: add_event sees old or new

    def _mask(self, value: Any, values: tuple[str, ...]) -> Any:
        if isinstance(value, str):
            for secret in values:
                if secret in value:
                    value = value.replace(secret, SECRET_PLACEHOLDER)
            return value
        if isinstance(value, dict):
            return {k: self._mask(v, values) for k, v in value.items()}
        if isinstance(value, list):
            return [self._mask(v, values) for v in value]
        return value

    def _replace_secrets(self, data: dict[str, Any], is_top_level: bool = True) -> dict[str, Any]:
        """A copy of the serialized event ``data`` with every secret value masked, as
        ``add_event`` stores it (the identifying top-level keys are left alone)."""
        values = self._masking.values
        if not values:
            return dict(data)
        if not is_top_level:
            masked: dict[str, Any] = self._mask(data, values)
            return masked
        return {k: (v if k in _PROTECTED_KEYS else self._mask(v, values)) for k, v in data.items()}

    def _serialize(self, event: Event) -> tuple[dict[str, Any], dict[str, Any], bytes]:
        """The unmasked dict of ``event``, its masked dict and the masked JSON text. The two
        dicts are the same object when the event holds no secret."""
        raw = event_to_dict(event)
        text = json_codec.dumps(raw)
        masking = self._masking
        # Most events hold no secret: mask (and serialize again) only when the text shows
        # that one of them may occur in a value. _mask builds new dicts and lists, so the
        # unmasked dict is left as it was.
        if masking.needles and any(needle in text for needle in masking.needles):
            values = masking.values
            masked = {
                k: (v if k in _PROTECTED_KEYS else self._mask(v, values)) for k, v in raw.items()
            }
            return raw, masked, json_codec.dumps(masked)
        return raw, raw, text

    # --- subscriptions -------------------------------------------------------------------

    def subscribe(
        self,
        subscriber_id: EventStreamSubscriber | str,
        callback: Callable[[Event], Any],
        callback_id: str,
    ) -> None:
        key = subscriber_id.value if isinstance(subscriber_id, Enum) else subscriber_id
        with self._lock:
            callbacks = self._subscribers.setdefault(key, {})
            if callback_id in callbacks:
                raise ValueError(f"Callback ID on subscriber {key} already exists: {callback_id}")
            callbacks[callback_id] = _Callback(key, callback_id, callback)
            self._rebuild_delivery_order()

    def unsubscribe(self, subscriber_id: EventStreamSubscriber | str, callback_id: str) -> None:
        key = subscriber_id.value if isinstance(subscriber_id, Enum) else subscriber_id
        with self._lock:
            entry = self._subscribers.get(key, {}).pop(callback_id, None)
            if entry is None:
                if self._closed:
                    return  # close() already stopped every callback
                logger.warning("Callback %s of subscriber %s is not subscribed", callback_id, key)
                return
            if not self._subscribers[key]:
                del self._subscribers[key]
            self._rebuild_delivery_order()
        entry.stop(drop_pending=False)

    def _rebuild_delivery_order(self) -> None:
        self._delivery_order = [
            cb for key in sorted(self._subscribers) for cb in self._subscribers[key].values()
        ]

    # --- writing -------------------------------------------------------------------------

    def add_event(self, event: Event, source: EventSource) -> None:
        if event.id != Event.INVALID_ID:
            raise ValueError(
                f"Event already has an ID: {event.id}. It was probably added back to the "
                "EventStream from inside a handler, which would trigger a loop."
            )
        event._timestamp = datetime.now().isoformat()
        event._source = source if isinstance(source, EventSource) else EventSource(source)
        with self._lock:
            try:
                raw, data, text = self._write_next(event)
            except BaseException:
                event.id = Event.INVALID_ID  # the id is not consumed: no gaps on disk
                raise
            event_id = event.id
            self._cur_id = event_id + 1
            self._append_to_page(event_id, text)
            for cb in self._delivery_order:
                cb.queue.put(raw if cb.unmasked else data)

    def _write_next(self, event: Event) -> tuple[dict[str, Any], dict[str, Any], bytes]:
        """Give ``event`` the next free id and write its file (under the lock); returns what
        ``_serialize`` returns."""
        event.id = self.cur_id
        raw, data, text = self._serialize(event)
        if len(text) > _LARGE_EVENT_BYTES:
            logger.warning("Event %s is large: %d bytes", event.id, len(text))
        try:
            self.file_store.write_new(self._event_path(event.id), text)
            return raw, data, text
        except FileExistsError:
            pass
        # The id is taken by a file this stream did not count (see the module notes). A
        # listing sees every file, so the next id after it is free (we are the only writer).
        taken = event.id
        event.id = max(self._cur_id_by_listing(), taken + 1)
        logger.warning("Event file %s already exists; continuing at id %s", taken, event.id)
        raw, data, text = self._serialize(event)
        self.file_store.write_new(self._event_path(event.id), text)
        return raw, data, text

    def _append_to_page(self, event_id: int, text: bytes) -> None:
        if event_id - self._page_start >= self.cache_size or event_id < self._page_start:
            self._page_start = event_id - event_id % self.cache_size
            self._page = [None] * (event_id - self._page_start)
        self._page.append(text)
        if len(self._page) < self.cache_size:
            return
        entries, start = self._page, self._page_start
        self._page_start, self._page = start + self.cache_size, []
        if any(e is None for e in entries):
            return
        try:
            self.file_store.write(self._page_path(start), b"[" + b",".join(entries) + b"]")  # type: ignore[arg-type]
        except Exception:
            # The events themselves are safe; reads fall back to per-event files.
            logger.exception("Could not write event cache page %s", start)

    # --- lifecycle -----------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._closed = True
            callbacks = self._delivery_order
            self._subscribers.clear()
            self._delivery_order = []
        for cb in callbacks:
            cb.stop(drop_pending=True)


async def session_exists(sid: str, file_store: FileStore, user_id: str | None = None) -> bool:
    """Whether the conversation ``sid`` has anything stored (the reference's async form of
    :func:`openhands.storage.locations.session_exists`)."""
    from openhands.storage.locations import session_exists as exists

    return await asyncio.to_thread(exists, sid, file_store, user_id)
