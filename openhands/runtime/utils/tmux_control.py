"""TmuxControl: one long-lived ``tmux -C`` client that runs a BashSession's tmux commands.

Starting a tmux client for every command costs about 3 ms (fork, exec, socket handshake), and
a bash ``echo`` needs four or five commands (send the keys, capture the pane until the prompt
is back, clear the screen), so those starts were most of an action's round trip. A client in
control mode (tmux(1), CONTROL MODE) reads commands on stdin and answers each one between
``%begin <t> <n> <f>`` and ``%end <t> <n> <f>`` (or ``%error …``) lines, in about 0.1 ms.

The client attaches to the session with the ``no-output`` flag, so tmux does not copy the
pane's output to it; the only other lines it writes are notifications (``%session-changed``
and the like), which come between answers and are skipped. A control client without a size
of its own does not resize the session's windows.
"""

from __future__ import annotations

import os
import select
import subprocess
import threading
from collections.abc import Sequence

_ANSWER_TIMEOUT_SECONDS = 30.0
# Characters tmux's command parser treats specially inside double quotes.
_QUOTED = {"\\": "\\\\", '"': '\\"', "$": "\\$", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


class TmuxControlError(RuntimeError):
    """tmux answered ``%error`` (the message is tmux's)."""


class TmuxControlClosed(RuntimeError):
    """The control client is gone (the tmux server or the session ended) or stopped answering.

    ``sent`` tells whether the command may have reached tmux (then it must not be repeated).
    """

    def __init__(self, message: str, sent: bool) -> None:
        super().__init__(message)
        self.sent = sent


def quote(arg: str) -> str:
    """``arg`` as one double-quoted word of tmux's command language, read back unchanged."""
    out = []
    for char in arg:
        if char in _QUOTED:
            out.append(_QUOTED[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\{ord(char):03o}")
        else:
            out.append(char)
    if out and out[0] == "~":
        out[0] = "\\176"  # tmux expands a leading ~ to $HOME, even inside quotes
    return '"' + "".join(out) + '"'


class TmuxControl:
    """Runs tmux commands through one control-mode client attached to ``session``."""

    def __init__(self, session: str, socket_name: str | None = None) -> None:
        command = ["tmux"]
        if socket_name:
            command += ["-L", socket_name]
        command += ["-C", "attach-session", "-f", "no-output", "-t", session]
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        assert self._process.stdout is not None and self._process.stdin is not None
        self._stdin = self._process.stdin
        self._stdout_fd = self._process.stdout.fileno()
        self._buffer = bytearray()
        self._lock = threading.Lock()
        try:
            self._read_answer()  # the answer to attach-session itself
        except (TmuxControlError, TmuxControlClosed):
            self.close()
            raise

    def run(self, *commands: Sequence[str]) -> list[str]:
        """Run one or more commands (each a list of arguments) in one go; returns the output.

        Several commands form one command line (``a ; b``), so tmux runs them back to back
        without anything in between.
        """
        line = " ; ".join(" ".join(quote(arg) for arg in command) for command in commands)
        with self._lock:
            if self._process.poll() is not None:
                raise TmuxControlClosed("the tmux control client has exited", sent=False)
            try:
                data = memoryview(line.encode() + b"\n")
                while data:  # an unbuffered pipe may take a long line in parts
                    data = data[self._stdin.write(data) or 0 :]
            except (BrokenPipeError, ValueError) as exc:
                raise TmuxControlClosed("the tmux control client has exited", sent=False) from exc
            output: list[str] = []
            # tmux answers each command on its own; after an error it skips the rest.
            for _ in commands:
                output += self._read_answer()
            return output

    def close(self) -> None:
        try:
            self._stdin.close()
        except OSError:
            pass
        try:
            self._process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=2)
        if self._process.stdout is not None:
            self._process.stdout.close()

    # -- reading answers ----------------------------------------------------------------------

    def _read_answer(self) -> list[str]:
        begin = self._read_line()
        while not begin.startswith(b"%begin "):  # a notification between answers
            begin = self._read_line()
        key = begin[len(b"%begin ") :]
        end, error = b"%end " + key + b"\n", b"%error " + key + b"\n"
        searched = 0
        while True:
            for mark in (end, error):
                at = self._find_line(mark, searched)
                if at >= 0:
                    body = bytes(self._buffer[:at])
                    del self._buffer[: at + len(mark)]
                    lines = body.decode("utf-8", errors="backslashreplace").split("\n")[:-1]
                    if mark is error:
                        raise TmuxControlError("\n".join(lines) or "tmux command failed")
                    return lines
            searched = max(0, len(self._buffer) - len(error) - 1)
            self._fill()

    def _find_line(self, mark: bytes, start: int) -> int:
        """Where a line equal to ``mark`` starts in the buffer, or -1."""
        if self._buffer.startswith(mark):
            return 0
        at = self._buffer.find(b"\n" + mark, start)
        return at + 1 if at >= 0 else -1

    def _read_line(self) -> bytes:
        while (end := self._buffer.find(b"\n")) < 0:
            self._fill()
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return line

    def _fill(self) -> None:
        # One read takes whatever tmux has written so far (a whole pane capture at once).
        ready, _, _ = select.select([self._stdout_fd], [], [], _ANSWER_TIMEOUT_SECONDS)
        if not ready:
            raise TmuxControlClosed(f"tmux did not answer within {_ANSWER_TIMEOUT_SECONDS}s", True)
        chunk = os.read(self._stdout_fd, 1 << 16)
        if not chunk:
            raise TmuxControlClosed("the tmux control client has exited", sent=True)
        self._buffer += chunk
