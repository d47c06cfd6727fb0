"""Awaiting a coroutine from synchronous code, on any thread.

The controller runs on the event stream's callback thread and calls the agent
synchronously, yet security analyzers are async because the server awaits them too; the
runtime's subscriber thread likewise awaits MCP tool calls. Both lean on this helper, so it
sits in utils, below them both.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_coroutine_blocking(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion and return its result, from any thread.

    On a thread without a running loop, a private loop runs it (the thread's current
    loop, if any, is left alone). Inside a running loop, a helper thread does the work,
    since that loop cannot be re-entered.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(coro)
        finally:
            loop.close()
    with ThreadPoolExecutor(max_workers=1) as pool:
        future: Future[T] = pool.submit(run_coroutine_blocking, coro)  # type: ignore[arg-type]
        return future.result()
