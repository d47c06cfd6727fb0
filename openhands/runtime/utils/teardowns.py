"""Which sandboxes are being torn down right now: one process-wide record.

Stopping a sandbox is slow and runs in the background (a worker thread), after its
conversation was closed. A new start of the same sandbox must not attach to it while it is
going away, and a server shutting down must not exit before it is gone. Both questions
are answered here, for every runtime: the Docker runtime marks a container's stop, the
conversation manager marks the teardown of a conversation's sandbox.

Waits work from threads (``wait``) and from an asyncio loop (``wait_async``), because
stops run in worker threads while starts and shutdown wait on the server's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field


@dataclass
class _Teardown:
    # Several teardowns of one key may overlap (a stop right after a restart): the key is
    # clear only when every one of them ended.
    count: int = 0
    done: threading.Event = field(default_factory=threading.Event)
    waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = field(
        default_factory=list
    )


class Teardowns:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active: dict[str, _Teardown] = {}

    def begin(self, key: str) -> None:
        with self._lock:
            self._active.setdefault(key, _Teardown()).count += 1

    def end(self, key: str) -> None:
        """One teardown of ``key`` is over (safe from any thread; extra calls are ignored)."""
        with self._lock:
            entry = self._active.get(key)
            if entry is None:
                return
            entry.count -= 1
            if entry.count > 0:
                return
            del self._active[key]
        entry.done.set()
        for loop, future in entry.waiters:
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits
                loop.call_soon_threadsafe(_resolve, future)

    @contextlib.contextmanager
    def tearing_down(self, key: str) -> Iterator[None]:
        self.begin(key)
        try:
            yield
        finally:
            self.end(key)

    def in_progress(self, key: str) -> bool:
        with self._lock:
            return key in self._active

    def keys(self) -> set[str]:
        with self._lock:
            return set(self._active)

    def wait(self, key: str, timeout: float) -> bool:
        """Block until no teardown of ``key`` runs; False if one still does at the timeout."""
        with self._lock:
            entry = self._active.get(key)
        return entry is None or entry.done.wait(timeout)

    async def wait_async(self, key: str, timeout: float) -> bool:
        return await self.wait_all_async([key], timeout)

    async def wait_all_async(self, keys: Iterable[str] | None, timeout: float) -> bool:
        """Wait on the running loop until no teardown of ``keys`` (None: of any key) runs;
        False if one still does at the timeout. Teardowns begun while waiting for other
        keys are not waited for."""
        loop = asyncio.get_running_loop()
        futures: list[asyncio.Future[None]] = []
        with self._lock:
            wanted = set(self._active) if keys is None else set(keys)
            for key in wanted:
                entry = self._active.get(key)
                if entry is not None:
                    future: asyncio.Future[None] = loop.create_future()
                    entry.waiters.append((loop, future))
                    futures.append(future)
        if not futures:
            return True
        _, pending = await asyncio.wait(futures, timeout=timeout)
        for future in pending:
            future.cancel()
        return not pending


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


# The process's record: the Docker runtime and the conversation manager both use it.
SANDBOX_TEARDOWNS = Teardowns()
