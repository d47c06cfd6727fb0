"""A process-wide "we are shutting down" flag, set by SIGINT/SIGTERM once listening is enabled.

Long loops (event searches, dispatch) check ``should_continue()`` so that Ctrl-C ends them
promptly. Handlers are installed explicitly (``install()``), never at import time, and they
chain to whatever handler was there before.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

_shutdown = threading.Event()
_installed = False


def _handler_for(previous: Any) -> Any:
    def handle(signum: int, frame: FrameType | None) -> None:
        _shutdown.set()
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL and signum == signal.SIGINT:
            raise KeyboardInterrupt

    return handle


def install() -> None:
    """Start listening for SIGINT/SIGTERM (main thread only; later calls do nothing)."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _handler_for(signal.getsignal(sig)))
    _installed = True


def should_continue() -> bool:
    return not _shutdown.is_set()


def should_exit() -> bool:
    return _shutdown.is_set()


def request_shutdown() -> None:
    _shutdown.set()


def reset() -> None:
    """Clear the flag (tests)."""
    _shutdown.clear()
