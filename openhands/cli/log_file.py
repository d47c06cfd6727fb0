"""While the terminal app runs, log output goes to a file instead of the screen.

Log records printed by the console handler landed between the app's panels (a ``WARNING …
cli_runtime.py …`` line above the agent's first answer, debug lines when a lower level was
set), and nothing of the screen could tell them apart from the conversation. So for the
duration of the app (:func:`logs_to_file`):

- every logging handler that writes to the terminal (``openhands``' console handler,
  LiteLLM's, the prompt/response loggers', ``logging.lastResort``) writes to
  ``~/.openhands/logs/cli.log`` instead, at the levels it had (``--log-level``,
  ``LOG_LEVEL``, ``DEBUG`` still choose what is recorded);
- ``sys.stderr`` points at the same file, so handlers created meanwhile (LiteLLM is imported
  while the session is being assembled), warnings and tracebacks of threads land there too.

``sys.stdout`` stays the terminal's: it is where the app draws. The file is created with
mode 0600 and every write is passed through the secret masking of the logger, because
tracebacks written to stderr did not go through the logger's filter. One previous file is
kept (``cli.log.1``) once the log grows past :data:`MAX_LOG_BYTES`.
"""

from __future__ import annotations

import io
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from openhands.core.logger import mask_secrets

LOG_FILE_NAME = "cli.log"
MAX_LOG_BYTES = 5 * 1024 * 1024


def cli_log_path() -> Path:
    """``~/.openhands/logs/cli.log`` of the current ``HOME`` (read at call time)."""
    return Path.home() / ".openhands" / "logs" / LOG_FILE_NAME


class MaskedLogStream(io.TextIOBase):
    """A text stream into the log file; registered secrets are masked in every write."""

    def __init__(self, target: TextIO) -> None:
        self.target = target

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if text and not self.target.closed:
            self.target.write(mask_secrets(text))
            # Line by line: a crash must not lose what was logged just before it.
            if "\n" in text:
                self.target.flush()
        return len(text)

    def flush(self) -> None:
        if not self.target.closed:
            self.target.flush()

    def close(self) -> None:
        self.target.close()
        super().close()


def _open_log(path: Path) -> TextIO:
    """The log file for appending (0600, its folder 0700), rotated once when too large."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        if path.stat().st_size > MAX_LOG_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
    except FileNotFoundError:
        pass
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    return open(descriptor, "a", encoding="utf-8", errors="replace")


def _stream_handlers() -> list[logging.StreamHandler[TextIO]]:
    """The stream handlers of every logger, the root included, each once."""
    loggers: list[logging.Logger] = [logging.getLogger()]
    loggers += [
        each
        for each in logging.root.manager.loggerDict.values()
        if isinstance(each, logging.Logger)
    ]
    found: list[logging.StreamHandler[TextIO]] = []
    for each in loggers:
        for handler in each.handlers:
            if isinstance(handler, logging.StreamHandler) and handler not in found:
                found.append(handler)
    return found


def _terminal_handlers() -> list[logging.StreamHandler[TextIO]]:
    """Handlers that write to the terminal (a FileHandler is a StreamHandler too)."""
    terminal = [s for s in (sys.stderr, sys.stdout, sys.__stderr__, sys.__stdout__) if s]
    return [
        handler
        for handler in _stream_handlers()
        if not isinstance(handler, logging.FileHandler)
        and (
            # Ours by its mark, whatever stream it was given (an embedding app may have
            # replaced sys.stderr since it was made).
            getattr(handler, "_openhands_console", False)
            or any(handler.stream is stream for stream in terminal)
        )
    ]


@contextmanager
def logs_to_file(path: Path | None = None) -> Iterator[Path | None]:
    """Send log output to ``path`` (default :func:`cli_log_path`) until the block ends.

    Yields the file's path, or None when it could not be opened (a read-only home): log
    output is then dropped rather than drawn over the app.
    """
    path = path or cli_log_path()
    opened: Path | None = path
    try:
        target = _open_log(path)
    except OSError:
        opened = None
        target = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    sink = MaskedLogStream(target)
    original_stderr = sys.stderr
    moved = [(handler, handler.stream) for handler in _terminal_handlers()]
    for handler, _ in moved:
        handler.setStream(sink)  # type: ignore[arg-type]
    sys.stderr = sink  # type: ignore[assignment]
    try:
        yield opened
    finally:
        sys.stderr = original_stderr
        for handler, stream in moved:
            handler.setStream(stream)
        # Handlers created while the app ran (LiteLLM's) took the sink as their stream.
        for handler in _stream_handlers():
            if handler.stream is sink:
                handler.setStream(original_stderr)
        sink.close()
