from __future__ import annotations

import asyncio
import threading

from openhands.utils.sync_bridge import run_coroutine_blocking


async def _where() -> int | None:
    await asyncio.sleep(0)
    return threading.get_ident()


def test_runs_a_coroutine_from_plain_code() -> None:
    assert run_coroutine_blocking(_where()) == threading.get_ident()


def test_leaves_the_threads_current_loop_alone() -> None:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        run_coroutine_blocking(_where())
        assert asyncio.get_event_loop() is loop
        assert not loop.is_closed()
    finally:
        asyncio.set_event_loop(None)
        loop.close()


async def test_works_inside_a_running_loop() -> None:
    # The running loop cannot be re-entered, so another thread does the work.
    assert run_coroutine_blocking(_where()) != threading.get_ident()
