"""One command of the CLI runtime: ``bash -c`` in its own process group, output streamed.

Each command is a fresh, non-interactive bash: nothing (cwd, variables, jobs) carries over.
stdin is /dev/null and the process starts a new session, so a command can never read from
or take over the terminal the CLI app itself draws on.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

from openhands.core.logger import openhands_logger as logger

LineCallback = Callable[[str], None]

# How often to look whether bash has exited while a background job still holds the pipe.
EXIT_POLL_SECONDS = 0.1
# Time a timed-out command gets to stop after SIGTERM before the group is killed outright.
TERM_GRACE_SECONDS = 5.0
READ_CHUNK = 65536
# What is read after bash exited: a background job may keep writing for ever.
MAX_DRAIN_CHUNKS = 64


@dataclass(frozen=True)
class BashResult:
    output: str
    exit_code: int  # -1 when the command timed out
    timed_out: bool


class _OutputCollector:
    """Decodes the merged output (bad UTF-8 replaced) and hands out complete lines."""

    def __init__(self, on_line: LineCallback | None) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._on_line = on_line
        self._parts: list[str] = []
        self._partial_line = ""

    def feed(self, data: bytes, final: bool = False) -> None:
        text = self._decoder.decode(data, final=final)
        self._parts.append(text)
        if self._on_line is None:
            return
        lines = (self._partial_line + text).split("\n")
        self._partial_line = lines.pop()
        for line in lines:
            self._emit(line + "\n")
        if final and self._partial_line:
            self._emit(self._partial_line)
            self._partial_line = ""

    def _emit(self, line: str) -> None:
        assert self._on_line is not None
        try:
            self._on_line(line)
        except Exception:
            # A broken display must not cost the agent its command's result.
            logger.exception("Shell stream callback failed")

    @property
    def text(self) -> str:
        return "".join(self._parts)


def run_bash(
    command: str, cwd: str, timeout: float, on_line: LineCallback | None = None
) -> BashResult:
    """Run ``command`` with ``bash -c`` in ``cwd``; stop its process group after ``timeout`` s."""
    process = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    assert process.stdout is not None
    collector = _OutputCollector(on_line)
    fd = process.stdout.fileno()
    os.set_blocking(fd, False)
    try:
        finished = _pump(process, fd, collector, time.monotonic() + timeout)
        if not finished:
            _stop_group(process)
        _drain(fd, collector)
    except BaseException:
        # Interrupted while waiting (Ctrl-C in the app): leave nothing of it running.
        _signal_group(process.pid, signal.SIGKILL)
        process.wait()
        raise
    finally:
        process.stdout.close()
        collector.feed(b"", final=True)
    if not finished:
        return BashResult(collector.text, -1, True)
    return BashResult(collector.text, process.returncode, False)


def _pump(
    process: subprocess.Popen[bytes], fd: int, collector: _OutputCollector, deadline: float
) -> bool:
    """Collect output until bash exits (True) or the deadline passes (False)."""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if selector.select(min(remaining, EXIT_POLL_SECONDS)):
                chunk = _read(fd)
                if chunk == b"":
                    # Every writer closed the pipe: only the exit status is left to wait for.
                    try:
                        process.wait(timeout=max(remaining, 0.001))
                    except subprocess.TimeoutExpired:
                        return False
                    return True
                if chunk:
                    collector.feed(chunk)
            # Checked after reads too: a background job that keeps writing must not keep a
            # finished command running until its timeout.
            if process.poll() is not None:
                return True


def _read(fd: int) -> bytes | None:
    """Up to one chunk; None when nothing is there right now."""
    try:
        return os.read(fd, READ_CHUNK)
    except BlockingIOError:
        return None


def _drain(fd: int, collector: _OutputCollector) -> None:
    """What bash wrote before it ended and is still in the pipe (without waiting for more)."""
    for _ in range(MAX_DRAIN_CHUNKS):
        chunk = _read(fd)
        if not chunk:
            return
        collector.feed(chunk)


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the whole group (bash and what it started); SIGKILL if it lingers."""
    _signal_group(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=TERM_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        _signal_group(process.pid, signal.SIGKILL)
        process.wait()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
