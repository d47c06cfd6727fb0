"""How the resolver's command lines report a failure: one clear line, exit status 1.

Provider rate limits, rejected tokens and HTTP or git failures are expected in CI; their
message is what the user needs, a traceback only hides it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

import httpx

T = TypeVar("T")

# Failures whose message says what went wrong; anything else is a bug and keeps its traceback.
EXPECTED_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,
    RuntimeError,
    httpx.HTTPError,
    OSError,
)


def describe_error(error: BaseException) -> str:
    """One line for the user: what was refused by whom, and what to do about a rate limit."""
    if isinstance(error, httpx.HTTPStatusError):
        response = error.response
        request = error.request
        where = f"{request.method} {request.url.copy_with(query=None)}"
        if _is_rate_limited(response):
            retry = response.headers.get("retry-after") or response.headers.get("x-ratelimit-reset")
            hint = f"; retry after {retry}" if retry else "; retry later"
            return f"API rate limit exceeded (HTTP {response.status_code}) for {where}{hint}"
        if response.status_code == 401:
            return f"The token was rejected (HTTP 401) for {where}: check the token"
        return f"HTTP {response.status_code} from {where}"
    if isinstance(error, httpx.RequestError):
        return f"Could not reach {error.request.url.copy_with(query=None)}: {error}"
    return str(error) or type(error).__name__


def _is_rate_limited(response: httpx.Response) -> bool:
    if response.status_code == 429:
        return True
    # GitHub answers 403 with no remaining quota.
    return response.status_code == 403 and response.headers.get("x-ratelimit-remaining") == "0"


def run_cli(main: Callable[[], T]) -> T:
    """``main()``; an expected failure is logged as one line and exits with status 1."""
    try:
        return main()
    except EXPECTED_ERRORS as error:
        print(f"Error: {describe_error(error)}", file=sys.stderr)
        raise SystemExit(1) from None
