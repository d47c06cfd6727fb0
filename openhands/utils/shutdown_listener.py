"""A process-wide "we are shutting down" flag, set by SIGINT/SIGTERM/SIGHUP.

Long loops (event searches, dispatch, retries) check ``should_continue()`` so that Ctrl-C
ends them promptly. The signal handlers are installed lazily, on the first use of this
module's functions in the main thread (or explicitly with ``install()``), never at import
time. On the first signal every registered listener is called once; each handler then
chains to whatever handler was there before.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any
from uuid import UUID, uuid4

logger = logging.getLogger(__name__)

_SIGNALS = tuple(
    sig for sig in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if sig
)
# How often the sleeps below look at the flag.
_POLL_SECONDS = 0.25

_shutdown = threading.Event()
_installed = False
_lock = threading.Lock()
_listeners: dict[UUID, Callable[[], Any]] = {}


def _notify_listeners() -> None:
    with _lock:
        listeners = list(_listeners.values())
    for listener in listeners:
        try:
            listener()
        except Exception:
            logger.exception("Shutdown listener %r failed", listener)


def _handler_for(previous: Any) -> Any:
    def handle(signum: int, frame: FrameType | None) -> None:
        first = not _shutdown.is_set()
        _shutdown.set()
        if first:
            _notify_listeners()
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL and signum == signal.SIGINT:
            raise KeyboardInterrupt

    return handle


def install() -> None:
    """Start listening for the shutdown signals (main thread only; later calls do nothing)."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    with _lock:
        if _installed:
            return
        for sig in _SIGNALS:
            signal.signal(sig, _handler_for(signal.getsignal(sig)))
        _installed = True


def should_continue() -> bool:
    install()
    return not _shutdown.is_set()


def should_exit() -> bool:
    install()
    return _shutdown.is_set()


def sleep_if_should_continue(timeout: float) -> None:
    """Sleep ``timeout`` seconds, returning early once shutdown begins."""
    install()
    _shutdown.wait(timeout)


async def async_sleep_if_should_continue(timeout: float) -> None:
    """``sleep_if_should_continue`` for coroutines: sleeps in short steps on the loop."""
    install()
    deadline = time.monotonic() + timeout
    while not _shutdown.is_set():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        await asyncio.sleep(min(remaining, _POLL_SECONDS))


def add_shutdown_listener(callback: Callable[[], Any]) -> UUID:
    """Call ``callback()`` once when the first shutdown signal arrives; returns its id."""
    install()
    listener_id = uuid4()
    with _lock:
        _listeners[listener_id] = callback
    return listener_id


def remove_shutdown_listener(listener_id: UUID) -> bool:
    """Forget a listener; False when the id is unknown."""
    with _lock:
        return _listeners.pop(listener_id, None) is not None


def request_shutdown() -> None:
    """Set the flag without a signal (listeners are not called)."""
    _shutdown.set()


def reset() -> None:
    """Clear the flag (tests)."""
    _shutdown.clear()
