"""Sync/async adapters."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time

import pytest

from openhands.utils.async_utils import (
    GENERAL_TIMEOUT,
    AsyncException,
    call_async_from_sync,
    call_coro_in_bg_thread,
    call_sync_from_async,
    run_in_loop,
    wait_all,
)


async def _double(x: int) -> int:
    await asyncio.sleep(0)
    return x * 2


async def _fail(message: str) -> None:
    raise ValueError(message)


def test_general_timeout() -> None:
    assert GENERAL_TIMEOUT == 15


async def test_wait_all_results_in_order_and_empty() -> None:
    assert await wait_all([]) == []
    assert await wait_all(_double(i) for i in range(5)) == [0, 2, 4, 6, 8]


async def test_wait_all_one_failure_is_raised_as_is() -> None:
    with pytest.raises(ValueError, match="boom"):
        await wait_all([_double(1), _fail("boom")])


async def test_wait_all_several_failures() -> None:
    with pytest.raises(AsyncException) as caught:
        await wait_all([_fail("a"), _double(1), _fail("b")])
    assert [str(e) for e in caught.value.exceptions] == ["a", "b"]
    assert str(caught.value) == "a\nb"


async def test_wait_all_timeout_cancels_the_rest() -> None:
    never = asyncio.Event()
    cancelled = asyncio.Event()

    async def stuck() -> None:
        try:
            await never.wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(asyncio.TimeoutError):
        await wait_all([stuck()], timeout=0.01)
    assert cancelled.is_set()


def test_call_async_from_sync_checks_its_argument() -> None:
    with pytest.raises(ValueError, match="corofn is None"):
        call_async_from_sync(None)
    with pytest.raises(ValueError, match="corofn is not a coroutine function"):
        call_async_from_sync(lambda: 1)  # type: ignore[arg-type, return-value]


def test_call_async_from_sync_runs_on_another_thread() -> None:
    async def where(x: int) -> tuple[int, int]:
        return x, threading.get_ident()

    value, thread_id = call_async_from_sync(where, 5, 21)
    assert value == 21
    assert thread_id != threading.get_ident()


async def test_call_async_from_sync_works_inside_a_running_loop() -> None:
    assert call_async_from_sync(_double, GENERAL_TIMEOUT, 4) == 8
    assert await call_coro_in_bg_thread(_double, GENERAL_TIMEOUT, 5) == 10


async def test_call_sync_from_async() -> None:
    def blocking(a: int, b: int = 0) -> tuple[int, int]:
        return a + b, threading.get_ident()

    total, thread_id = await call_sync_from_async(blocking, 1, b=2)
    assert total == 3 and thread_id != threading.get_ident()


async def test_run_in_loop_same_and_other_loop() -> None:
    assert await run_in_loop(_double(3), asyncio.get_running_loop()) == 6
    other = asyncio.new_event_loop()
    thread = threading.Thread(target=other.run_forever, daemon=True)
    thread.start()
    try:

        async def loop_of() -> asyncio.AbstractEventLoop:
            return asyncio.get_running_loop()

        assert await run_in_loop(loop_of(), other) is other
    finally:
        other.call_soon_threadsafe(other.stop)
        thread.join()
        other.close()


def _waiting_in_future_result(thread_id: int) -> bool:
    """Whether ``thread_id`` is blocked inside ``concurrent.futures.Future.result``."""
    frame = sys._current_frames().get(thread_id)
    while frame is not None:
        if frame.f_code.co_name == "result" and frame.f_code.co_filename.endswith(
            os.path.join("concurrent", "futures", "_base.py")
        ):
            return True
        frame = frame.f_back
    return False


@pytest.mark.parametrize("timeout", [0, None])
def test_call_async_from_sync_without_a_limit_waits_for_the_result(timeout: float | None) -> None:
    """0 (as in 0.59) and None mean "no limit": the caller waits until the coroutine ends.
    The coroutine is released only once the caller is already blocked waiting for it."""
    caller = threading.get_ident()
    release = threading.Event()
    finished = threading.Event()

    def releaser() -> None:
        while not finished.is_set() and not _waiting_in_future_result(caller):
            time.sleep(0.001)
        release.set()

    async def slow() -> str:
        await asyncio.to_thread(release.wait)
        return "done"

    helper = threading.Thread(target=releaser, daemon=True)
    helper.start()
    try:
        assert call_async_from_sync(slow, timeout) == "done"
    finally:
        finished.set()
        release.set()
        helper.join()
