"""Shutdown flag, listeners and the interruptible sleeps."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from uuid import UUID, uuid4

import pytest

from openhands.utils import shutdown_listener as sl


@pytest.fixture(autouse=True)
def _clean_flag() -> Iterator[None]:
    sl.reset()
    yield
    sl.reset()


def test_add_and_remove_listener() -> None:
    listener_id = sl.add_shutdown_listener(lambda: None)
    assert isinstance(listener_id, UUID)
    assert sl.remove_shutdown_listener(listener_id) is True
    assert sl.remove_shutdown_listener(listener_id) is False
    assert sl.remove_shutdown_listener(uuid4()) is False


def test_signal_calls_each_listener_once_then_the_previous_handler() -> None:
    calls: list[str] = []
    previous = signal.getsignal(signal.SIGHUP)
    # A handler installed before ours must still run: install ours over a recording one.
    signal.signal(signal.SIGHUP, lambda signum, frame: calls.append("previous"))
    saved_installed = sl._installed
    sl._installed = False
    try:
        sl.install()
        listener_id = sl.add_shutdown_listener(lambda: calls.append("listener"))
        assert sl.should_continue()
        os.kill(os.getpid(), signal.SIGHUP)
        os.kill(os.getpid(), signal.SIGHUP)
        assert sl.should_exit()
        assert calls == ["listener", "previous", "previous"]
        sl.remove_shutdown_listener(listener_id)
    finally:
        signal.signal(signal.SIGHUP, previous)
        sl._installed = saved_installed


def test_sleep_returns_once_shutdown_begins() -> None:
    done = threading.Event()

    def sleeper() -> None:
        sl.sleep_if_should_continue(3600)
        done.set()

    thread = threading.Thread(target=sleeper)
    thread.start()
    sl.request_shutdown()
    thread.join()
    assert done.is_set()


async def test_async_sleep_returns_once_shutdown_begins() -> None:
    await sl.async_sleep_if_should_continue(0)
    sl.request_shutdown()
    await sl.async_sleep_if_should_continue(3600)
    assert sl.should_exit()


def test_a_listener_may_remove_another_during_shutdown() -> None:
    calls: list[str] = []
    previous = signal.getsignal(signal.SIGHUP)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    first = sl.add_shutdown_listener(lambda: calls.append("first"))

    def second() -> None:
        sl.remove_shutdown_listener(first)
        calls.append("second")

    second_id = sl.add_shutdown_listener(second)
    try:
        sl._register_signal_handler(signal.SIGHUP)
        os.kill(os.getpid(), signal.SIGHUP)
        assert sl.should_exit()
        # Everyone registered when the signal arrived is told, in registration order.
        assert calls == ["first", "second"]
        assert first not in sl._shutdown_listeners
    finally:
        signal.signal(signal.SIGHUP, previous)
        sl.remove_shutdown_listener(second_id)
