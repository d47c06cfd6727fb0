"""A FileStore wrapper that mirrors every change to an HTTP endpoint, one request per change."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx

from openhands.storage.files import FileStore

logger = logging.getLogger(__name__)

DELIVERY_ATTEMPTS = 3
RETRY_DELAY_SECONDS = 1.0


def deliver_with_retries(
    send: Callable[[], httpx.Response],
    description: str,
    *,
    attempts: int = DELIVERY_ATTEMPTS,
    retry_delay: float = RETRY_DELAY_SECONDS,
) -> bool:
    """Call ``send`` until it returns a 2xx response, at most ``attempts`` times.

    Returns whether the delivery succeeded. A final failure is logged (without the
    request body, which may hold secrets), never raised: hooks run in the background.
    """
    for attempt in range(1, attempts + 1):
        try:
            send().raise_for_status()
            return True
        except httpx.HTTPError as error:
            if attempt == attempts:
                logger.error(
                    "Web hook %s failed after %d attempts: %s", description, attempts, error
                )
                return False
            time.sleep(retry_delay)
    return False


class WebHookFileStore(FileStore):
    """Wraps a store; after each write sends ``POST {base_url}{path}`` with the raw contents
    as the body, and after each delete ``DELETE {base_url}{path}``.

    Requests go out in the background, in the order of the changes (one worker thread).
    ``flush`` waits until everything submitted so far has been delivered or given up.
    """

    def __init__(
        self,
        file_store: FileStore,
        base_url: str,
        client: httpx.Client | None = None,
        *,
        attempts: int = DELIVERY_ATTEMPTS,
        retry_delay: float = RETRY_DELAY_SECONDS,
    ) -> None:
        self.file_store = file_store
        self.base_url = base_url
        self.client = client if client is not None else httpx.Client()
        self.attempts = attempts
        self.retry_delay = retry_delay
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="file-store-hook")

    def write(self, path: str, contents: str | bytes) -> None:
        self.file_store.write(path, contents)
        self._executor.submit(self._on_write, path, contents)

    def write_private(self, path: str, contents: str | bytes) -> None:
        self.file_store.write_private(path, contents)
        self._executor.submit(self._on_write, path, contents)

    def read(self, path: str) -> str:
        return self.file_store.read(path)

    def list(self, path: str) -> list[str]:
        return self.file_store.list(path)

    def delete(self, path: str) -> None:
        self.file_store.delete(path)
        self._executor.submit(self._on_delete, path)

    def flush(self, timeout: float | None = None) -> None:
        """Block until the changes submitted so far have been sent (or given up)."""
        self._executor.submit(lambda: None).result(timeout)

    def close(self) -> None:
        """Deliver what is pending, then stop the worker thread."""
        self._executor.shutdown(wait=True)

    def _on_write(self, path: str, contents: str | bytes) -> None:
        url = self.base_url + path
        deliver_with_retries(
            lambda: self.client.post(url, content=contents),
            f"POST {path}",
            attempts=self.attempts,
            retry_delay=self.retry_delay,
        )

    def _on_delete(self, path: str) -> None:
        url = self.base_url + path
        deliver_with_retries(
            lambda: self.client.delete(url),
            f"DELETE {path}",
            attempts=self.attempts,
            retry_delay=self.retry_delay,
        )
