"""``HttpSession``: default headers over one shared, pooled ``httpx.Client``.

Sessions are cheap: they share the connection pool, so closing one does not close the
pool. Using a session after ``close()`` still works but logs an error, which points at the
caller that kept it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

logger = logging.getLogger(__name__)

_client: httpx.Client | None = None
_client_lock = threading.Lock()


def _shared_client() -> httpx.Client:
    global _client
    with _client_lock:
        if _client is None:
            import httpx

            _client = httpx.Client()
        return _client


@dataclass
class HttpSession:
    headers: dict[str, str] = field(default_factory=dict)
    _closed: bool = field(default=False, repr=False)

    def request(self, *args: Any, **kwargs: Any) -> httpx.Response:
        """``httpx.Client.request`` with this session's headers under the call's own."""
        if self._closed:
            logger.error("HttpSession used after close()")
        call_headers: Mapping[str, str] = kwargs.pop("headers", None) or {}
        kwargs["headers"] = {**self.headers, **call_headers}
        return _shared_client().request(*args, **kwargs)

    def stream(self, *args: Any, **kwargs: Any) -> Any:
        if self._closed:
            logger.error("HttpSession used after close()")
        call_headers: Mapping[str, str] = kwargs.pop("headers", None) or {}
        kwargs["headers"] = {**self.headers, **call_headers}
        return _shared_client().stream(*args, **kwargs)

    def get(self, *args: Any, **kwargs: Any) -> httpx.Response:
        return self.request("GET", *args, **kwargs)

    def post(self, *args: Any, **kwargs: Any) -> httpx.Response:
        return self.request("POST", *args, **kwargs)

    def patch(self, *args: Any, **kwargs: Any) -> httpx.Response:
        return self.request("PATCH", *args, **kwargs)

    def put(self, *args: Any, **kwargs: Any) -> httpx.Response:
        return self.request("PUT", *args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", *args, **kwargs)

    def options(self, *args: Any, **kwargs: Any) -> httpx.Response:
        return self.request("OPTIONS", *args, **kwargs)

    def close(self) -> None:
        self._closed = True
