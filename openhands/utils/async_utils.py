"""Crossing between synchronous and asynchronous code, in a few named adapters.

``call_sync_from_async`` runs blocking code on the event loop's executor;
``call_async_from_sync`` runs a coroutine function on a fresh event loop in a pool thread
(so it works even when the calling thread already runs a loop); ``wait_all`` gathers
coroutines with a deadline and reports every failure; ``run_in_loop`` runs a coroutine on a
given loop, which may belong to another thread.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

GENERAL_TIMEOUT: int = 15
EXECUTOR = ThreadPoolExecutor(thread_name_prefix="openhands-async")


class AsyncException(Exception):
    """Several coroutines given to ``wait_all`` failed; ``exceptions`` holds them all."""

    def __init__(self, exceptions: list[BaseException]) -> None:
        super().__init__(exceptions)
        self.exceptions = exceptions

    def __str__(self) -> str:
        return "\n".join(str(error) for error in self.exceptions)


async def call_sync_from_async(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run the blocking ``fn(*args, **kwargs)`` in the loop's default executor."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, functools.partial(fn, *args, **kwargs))


def call_async_from_sync(
    corofn: Callable[..., Coroutine[Any, Any, T]] | None,
    timeout: float | None = GENERAL_TIMEOUT,
    *args: Any,
    **kwargs: Any,
) -> T:
    """Run ``corofn(*args, **kwargs)`` to completion on a new event loop in a pool thread and
    return its result, waiting at most ``timeout`` seconds (``TimeoutError`` after that);
    a ``timeout`` of 0 or None waits as long as it takes. Once the pool has been shut down
    (interpreter exit) the coroutine runs in this thread."""
    if corofn is None:
        raise ValueError("corofn is None")
    if not inspect.iscoroutinefunction(corofn):
        raise ValueError("corofn is not a coroutine function")

    def run() -> T:
        return asyncio.run(corofn(*args, **kwargs))

    try:
        future = EXECUTOR.submit(run)
    except RuntimeError:  # "cannot schedule new futures after shutdown"
        return run()
    return future.result(timeout or None)


async def call_coro_in_bg_thread(
    corofn: Callable[..., Coroutine[Any, Any, T]],
    timeout: float | None = GENERAL_TIMEOUT,
    *args: Any,
    **kwargs: Any,
) -> T:
    """``call_async_from_sync`` for async callers: the coroutine gets a loop of its own in
    another thread, and this loop stays free while it runs."""
    return await call_sync_from_async(call_async_from_sync, corofn, timeout, *args, **kwargs)


async def wait_all(
    iterable: Iterable[Awaitable[T]], timeout: float | None = GENERAL_TIMEOUT
) -> list[T]:
    """Run every awaitable concurrently and return their results in the input order.

    On timeout the unfinished ones are cancelled and ``asyncio.TimeoutError`` is raised. One
    failure is re-raised as is; several are raised together as ``AsyncException``.
    """
    tasks = [asyncio.ensure_future(item) for item in iterable]
    if not tasks:
        return []
    _done, pending = await asyncio.wait(tasks, timeout=timeout)
    if pending:
        for task in pending:
            task.cancel()
        await asyncio.wait(pending)
        raise TimeoutError()
    errors: list[BaseException] = []
    for task in tasks:
        if task.cancelled():
            errors.append(asyncio.CancelledError())
        elif (error := task.exception()) is not None:
            errors.append(error)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise AsyncException(errors)
    return [task.result() for task in tasks]


async def run_in_loop(
    coro: Coroutine[Any, Any, T],
    loop: asyncio.AbstractEventLoop,
    timeout: float | None = GENERAL_TIMEOUT,
) -> T:
    """Await ``coro`` on ``loop``: directly when that is the running loop, otherwise by
    submitting it to ``loop`` (which runs in another thread) and waiting up to ``timeout``."""
    if loop is asyncio.get_running_loop():
        return await coro
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    return await asyncio.wait_for(asyncio.wrap_future(future), timeout)
