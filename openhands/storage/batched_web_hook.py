"""A FileStore wrapper that mirrors changes to an HTTP endpoint in batches."""

from __future__ import annotations

import base64
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

from openhands.storage.files import FileStore
from openhands.storage.web_hook import DELIVERY_ATTEMPTS, RETRY_DELAY_SECONDS, deliver_with_retries

logger = logging.getLogger(__name__)

BATCH_TIMEOUT_SECONDS = 5.0
BATCH_SIZE_LIMIT_BYTES = 1024 * 1024


@dataclass(frozen=True)
class _Change:
    method: str  # "POST" (write) or "DELETE"
    contents: str | bytes | None = None

    @property
    def size(self) -> int:
        if self.contents is None:
            return 0
        if isinstance(self.contents, str):
            return len(self.contents.encode("utf-8"))
        return len(self.contents)


def batch_item(path: str, change: _Change) -> dict[str, Any]:
    """One entry of the batch body: ``{method, path, content?, encoding?}``."""
    item: dict[str, Any] = {"method": change.method, "path": path}
    contents = change.contents
    if change.method == "POST" and contents is not None:
        if isinstance(contents, bytes):
            try:
                item["content"] = contents.decode("utf-8")
            except UnicodeDecodeError:
                item["content"] = base64.b64encode(contents).decode("ascii")
                item["encoding"] = "base64"
        else:
            item["content"] = contents
    return item


class BatchedWebHookFileStore(FileStore):
    """Wraps a store and collects its changes, the latest change per path winning.

    A batch is sent ``batch_timeout_seconds`` after its first change, or as soon as its
    contents reach ``batch_size_limit_bytes``, as one ``POST {base_url}`` whose JSON body
    is an array of ``{"method": "POST"|"DELETE", "path", "content"?, "encoding"?}``.
    Entries are ordered by their latest change. Batches go out one at a time from a
    worker thread that exists only while there is something to send.
    """

    def __init__(
        self,
        file_store: FileStore,
        base_url: str,
        client: httpx.Client | None = None,
        *,
        batch_timeout_seconds: float = BATCH_TIMEOUT_SECONDS,
        batch_size_limit_bytes: int = BATCH_SIZE_LIMIT_BYTES,
        attempts: int = DELIVERY_ATTEMPTS,
        retry_delay: float = RETRY_DELAY_SECONDS,
    ) -> None:
        self.file_store = file_store
        self.base_url = base_url
        self.client = client if client is not None else httpx.Client()
        self.batch_timeout_seconds = batch_timeout_seconds
        self.batch_size_limit_bytes = batch_size_limit_bytes
        self.attempts = attempts
        self.retry_delay = retry_delay
        self._condition = threading.Condition()
        self._pending: dict[str, _Change] = {}
        self._pending_bytes = 0
        self._deadline = 0.0
        self._sending = False
        self._flush_waiters = 0
        self._worker: threading.Thread | None = None

    # --- FileStore --------------------------------------------------------------------

    def write(self, path: str, contents: str | bytes) -> None:
        self.file_store.write(path, contents)
        self._queue(path, _Change("POST", contents))

    def write_private(self, path: str, contents: str | bytes) -> None:
        self.file_store.write_private(path, contents)
        self._queue(path, _Change("POST", contents))

    def read(self, path: str) -> str:
        return self.file_store.read(path)

    def list(self, path: str) -> list[str]:
        return self.file_store.list(path)

    def delete(self, path: str) -> None:
        self.file_store.delete(path)
        self._queue(path, _Change("DELETE"))

    # --- batching ---------------------------------------------------------------------

    def flush(self, timeout: float | None = None) -> bool:
        """Send what is pending now and wait for it; False if ``timeout`` ran out."""
        with self._condition:
            self._flush_waiters += 1
            self._condition.notify_all()
            try:
                return self._condition.wait_for(
                    lambda: not self._pending and not self._sending, timeout
                )
            finally:
                self._flush_waiters -= 1

    def _queue(self, path: str, change: _Change) -> None:
        with self._condition:
            previous = self._pending.pop(path, None)
            if previous is not None:
                self._pending_bytes -= previous.size
            elif not self._pending:
                self._deadline = time.monotonic() + self.batch_timeout_seconds
            self._pending[path] = change
            self._pending_bytes += change.size
            if self._worker is None:
                self._worker = threading.Thread(
                    target=self._run, name="file-store-batch-hook", daemon=True
                )
                self._worker.start()
            else:
                self._condition.notify_all()

    def _due(self) -> bool:
        return (
            self._flush_waiters > 0
            or self._pending_bytes >= self.batch_size_limit_bytes
            or time.monotonic() >= self._deadline
        )

    def _run(self) -> None:
        while True:
            with self._condition:
                while not self._due():
                    self._condition.wait(max(0.0, self._deadline - time.monotonic()))
                batch, self._pending, self._pending_bytes = self._pending, {}, 0
                self._sending = True
            try:
                self._send(batch)
            except Exception:  # the worker must survive anything, or later batches stall
                logger.exception("Sending a web-hook batch failed")
            with self._condition:
                self._sending = False
                self._condition.notify_all()
                # Changes that arrived meanwhile form the next batch, which keeps the
                # deadline set by its own first change; with none, the worker retires.
                if not self._pending:
                    self._worker = None
            if self._worker is not threading.current_thread():
                return

    def _send(self, batch: dict[str, _Change]) -> None:
        if not batch:
            return
        payload = [batch_item(path, change) for path, change in batch.items()]
        deliver_with_retries(
            lambda: self.client.post(self.base_url, json=payload),
            f"batch of {len(payload)} changes",
            attempts=self.attempts,
            retry_delay=self.retry_delay,
        )
