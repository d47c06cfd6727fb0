"""Which of a sandbox's reserved app ports actually serve something.

The runtime reserves its app ports when the sandbox starts, long before anything listens on
them, and Docker's port proxy accepts a TCP connection on a published port even when nothing
listens behind it. So a port counts as live only when an HTTP request to it gets a response
(any status): a refused, reset or silent connection does not.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

# Per host: connect, send and read the status line. Short, since nothing listening fails fast.
PROBE_TIMEOUT_S = 3.0


async def _answers(client: httpx.AsyncClient, url: str) -> bool:
    import httpx

    try:
        async with client.stream("GET", url):
            return True  # a status line arrived; the body is not needed
    except (httpx.HTTPError, OSError, ValueError):
        return False


async def live_web_hosts(hosts: dict[str, int]) -> dict[str, int]:
    """The subset of ``hosts`` (URL to port) whose URL answers an HTTP request."""
    if not hosts:
        return {}
    import httpx  # here, not at module level: the server's start-up stays light

    # trust_env=False: a proxy from the environment must not answer for the sandbox.
    async with httpx.AsyncClient(
        timeout=PROBE_TIMEOUT_S, trust_env=False, follow_redirects=False
    ) as client:
        urls = list(hosts)
        answers = await asyncio.gather(*(_answers(client, url) for url in urls))
    return {url: hosts[url] for url, ok in zip(urls, answers, strict=True) if ok}
