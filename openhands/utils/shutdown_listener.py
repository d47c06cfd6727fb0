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

# The flag itself. A plain module attribute so that it can be read (and, in tests, reset)
# without going through a lock; ``_wake`` only exists to end sleeps early.
_should_exit = False
_wake = threading.Event()
_installed = False
# Reentrant: the signal handler may run in the main thread while it holds the lock.
_lock = threading.RLock()
_shutdown_listeners: dict[UUID, Callable[[], Any]] = {}
# Older name of the same registry, kept so that existing callers keep working.
_listeners = _shutdown_listeners


def _begin_shutdown() -> bool:
    """Set the flag; True only for the call that actually set it."""
    global _should_exit
    first = not _should_exit
    _should_exit = True
    _wake.set()
    return first


def _notify_listeners() -> None:
    with _lock:
        listeners = list(_shutdown_listeners.values())
    for listener in listeners:
        try:
            listener()
        except Exception:
            logger.exception("Shutdown listener %r failed", listener)


def _register_signal_handler(sig: signal.Signals) -> None:
    """Install our handler for ``sig`` on top of whatever handler was there before.

    On the first signal every listener is called once; each signal is then passed on to the
    previous handler, so a host application's own handling still runs.
    """
    previous: Any = None

    def handle(signum: int, frame: FrameType | None) -> None:
        if _begin_shutdown():
            _notify_listeners()
        if callable(previous):
            previous(signum, frame)
        elif previous is not None and previous == signal.SIG_DFL and signum == signal.SIGINT:
            raise KeyboardInterrupt

    previous = signal.signal(sig, handle)


def install() -> None:
    """Start listening for the shutdown signals (main thread only; later calls do nothing)."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    with _lock:
        if _installed:
            return
        for sig in _SIGNALS:
            _register_signal_handler(sig)
        _installed = True


def should_continue() -> bool:
    install()
    return not _should_exit


def should_exit() -> bool:
    install()
    return bool(_should_exit)


def _wait(seconds: float) -> None:
    # The flag can be cleared behind our back (``reset`` or a test assigning it); a stale
    # wake-up event would then turn the sleep into a busy loop.
    if _wake.is_set() and not _should_exit:
        _wake.clear()
    _wake.wait(seconds)


def sleep_if_should_continue(timeout: float) -> None:
    """Sleep ``timeout`` seconds, returning early once shutdown begins."""
    install()
    deadline = time.monotonic() + timeout
    while not _should_exit:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        _wait(min(remaining, _POLL_SECONDS))


async def async_sleep_if_should_continue(timeout: float) -> None:
    """``sleep_if_should_continue`` for coroutines: sleeps in short steps on the loop."""
    install()
    deadline = time.monotonic() + timeout
    while not _should_exit:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        await asyncio.sleep(min(remaining, _POLL_SECONDS))


def add_shutdown_listener(callback: Callable[[], Any]) -> UUID:
    """Call ``callback()`` once when the first shutdown signal arrives; returns its id."""
    install()
    listener_id = uuid4()
    with _lock:
        _shutdown_listeners[listener_id] = callback
    return listener_id


def remove_shutdown_listener(listener_id: UUID) -> bool:
    """Forget a listener; False when the id is unknown."""
    with _lock:
        return _shutdown_listeners.pop(listener_id, None) is not None


def request_shutdown() -> None:
    """Set the flag without a signal (listeners are not called)."""
    _begin_shutdown()


def reset() -> None:
    """Clear the flag (tests)."""
    global _should_exit
    _should_exit = False
    _wake.clear()
