"""HTTP requests to runtime services (the Runtime API, remote-runtime.md §4).

A 429 is retried (3 attempts in all, exponential wait 4-60 s, no more once the process is
shutting down); any other 4xx/5xx raises ``RequestHTTPError`` carrying the body's
``detail``; a timeout raises ``httpx.TimeoutException`` after being logged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

import httpx
from tenacity import (
    RetryCallState,
    retry,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from openhands.core.logger import openhands_logger as logger
from openhands.utils.tenacity_stop import stop_if_should_exit


class _Session(Protocol):
    def request(self, *args: Any, **kwargs: Any) -> httpx.Response: ...


class RequestHTTPError(httpx.HTTPStatusError):
    """An HTTP error status; ``detail`` is the ``detail`` field of the JSON body, if any."""

    def __init__(
        self, message: str, *, request: httpx.Request, response: httpx.Response, detail: Any = None
    ) -> None:
        super().__init__(message, request=request, response=response)
        self.detail = detail

    def __str__(self) -> str:
        text = super().__str__()
        if self.detail is not None:
            text += f"\nDetails: {self.detail}"
        return text


def is_retryable_error(exception: BaseException) -> bool:
    """Only "too many requests" is worth asking again."""
    return isinstance(exception, httpx.HTTPStatusError) and exception.response.status_code == 429


# How long to wait before asking again after a 429. Looked up at every retry, so tests can
# replace it (``monkeypatch.setattr(request, "rate_limit_wait", tenacity.wait_none())``).
rate_limit_wait: Callable[[RetryCallState], float] = wait_exponential(multiplier=1, min=4, max=60)


def _wait_after_rate_limit(retry_state: RetryCallState) -> float:
    return rate_limit_wait(retry_state)


@retry(
    retry=retry_if_exception(is_retryable_error),
    stop=stop_after_attempt(3) | stop_if_should_exit(),
    wait=_wait_after_rate_limit,
    reraise=True,
)
def send_request(
    session: _Session, method: str, url: str, timeout: float = 60, **kwargs: Any
) -> httpx.Response:
    """``session.request(method, url, timeout=timeout, **kwargs)``, raising for errors."""
    try:
        response = session.request(method, url, timeout=timeout, **kwargs)
    except httpx.TimeoutException:
        logger.error("No response to %s %s within %s s", method, url, timeout)
        raise
    try:
        response.raise_for_status()
    except httpx.HTTPStatusError as error:
        detail = _detail_of(response)
        response.close()
        raise RequestHTTPError(
            str(error), request=error.request, response=error.response, detail=detail
        ) from error
    return response


def _detail_of(response: httpx.Response) -> Any:
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError, httpx.ResponseNotRead):
        return None
    return body.get("detail") if isinstance(body, dict) else None
