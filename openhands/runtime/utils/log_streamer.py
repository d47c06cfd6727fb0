"""Forwarding a Docker container's output to a log function on a background thread."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any, Protocol

LogFn = Callable[[str, str], None]


class _LogStream(Protocol):
    def __iter__(self) -> Iterator[bytes]: ...

    def close(self) -> None: ...


class LogStreamer:
    """Streams ``container.logs(stream=True, follow=True)`` to ``logFn(level, line)``.

    Each output line goes out at level ``debug`` as ``[inside container] <line>``;
    trouble with the stream itself at level ``error``. ``close`` stops the thread.
    """

    def __init__(self, container: Any, logFn: LogFn) -> None:
        self.log = logFn
        self._stop_event = threading.Event()
        self.log_generator: _LogStream | None = None
        self.stdout_thread: threading.Thread | None = None
        try:
            self.log_generator = container.logs(stream=True, follow=True)
        except Exception as error:
            self.log("error", f"Failed to initialize log streaming: {error}")
            return
        self.stdout_thread = threading.Thread(
            target=self._stream_logs, name="container-log-streamer", daemon=True
        )
        self.stdout_thread.start()

    def _stream_logs(self) -> None:
        if self.log_generator is None:
            self.log("error", "Log generator not initialized")
            return
        try:
            for raw in self.log_generator:
                if self._stop_event.is_set():
                    return
                line = raw.decode("utf-8", errors="replace").rstrip()
                if line:
                    self.log("debug", f"[inside container] {line}")
        except Exception as error:
            # Closing the stream from `close` ends the iteration with an error: not news.
            if not self._stop_event.is_set():
                self.log("error", f"Error streaming docker logs: {error}")

    def close(self, timeout: float = 5.0) -> None:
        """Stop streaming and wait up to ``timeout`` seconds for the thread to end."""
        self._stop_event.set()
        if self.log_generator is not None:
            try:
                # Closing the HTTP stream unblocks a thread waiting for the next line.
                self.log_generator.close()
            except Exception:
                pass
        thread = self.stdout_thread
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            thread.join(timeout)

    def __del__(self) -> None:
        # Best effort on garbage collection; a half-built streamer has nothing to stop.
        if getattr(self, "stdout_thread", None) is not None and hasattr(self, "_stop_event"):
            self.close(timeout=0)
