"""Teardowns: the one record of sandboxes being torn down, waited for from threads and
from the event loop."""

from __future__ import annotations

import asyncio
import threading

from openhands.runtime.utils.teardowns import Teardowns


async def test_an_async_wait_ends_when_the_last_overlapping_teardown_ends() -> None:
    teardowns = Teardowns()
    teardowns.begin("a")
    teardowns.begin("a")
    waiting = asyncio.create_task(teardowns.wait_async("a", timeout=60))
    teardowns.end("a")
    for _ in range(10):
        await asyncio.sleep(0)
    assert not waiting.done() and teardowns.in_progress("a")
    teardowns.end("a")
    assert await waiting is True
    assert not teardowns.in_progress("a")


async def test_a_teardown_ended_on_another_thread_wakes_the_loop() -> None:
    teardowns = Teardowns()
    release = threading.Event()

    def stop_in_a_worker() -> None:
        with teardowns.tearing_down("box"):
            release.wait()

    worker = asyncio.get_running_loop().run_in_executor(None, stop_in_a_worker)
    while not teardowns.in_progress("box"):  # the worker marks it first
        await asyncio.sleep(0)
    waiting = asyncio.create_task(teardowns.wait_async("box", timeout=60))
    await asyncio.sleep(0)
    assert not waiting.done()
    release.set()
    assert await waiting is True
    await worker


async def test_other_keys_and_a_timeout() -> None:
    teardowns = Teardowns()
    teardowns.begin("other")
    assert await teardowns.wait_async("mine", timeout=60) is True  # nothing of "mine"
    assert await teardowns.wait_async("other", timeout=0) is False
    assert teardowns.keys() == {"other"}
    teardowns.end("other")
    teardowns.end("other")  # an extra end is ignored
    assert teardowns.keys() == set()


def test_a_thread_wait_returns_at_once_when_nothing_is_torn_down() -> None:
    teardowns = Teardowns()
    assert teardowns.wait("x", timeout=0) is True
    teardowns.begin("x")
    assert teardowns.wait("x", timeout=0) is False
    teardowns.end("x")
    assert teardowns.wait("x", timeout=0) is True


def test_a_docker_container_stop_is_recorded_in_the_shared_record() -> None:
    from openhands.runtime.impl.docker import docker_runtime
    from openhands.runtime.utils.teardowns import SANDBOX_TEARDOWNS

    seen: list[bool] = []

    class Container:
        name = "openhands-runtime-teardown-probe"

        def stop(self) -> None:
            seen.append(SANDBOX_TEARDOWNS.in_progress(self.name))

    docker_runtime.stop_container(Container())  # type: ignore[arg-type]
    assert seen == [True]
    assert not SANDBOX_TEARDOWNS.in_progress(Container.name)
