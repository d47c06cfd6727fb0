"""TmuxControl: one long-lived ``tmux -C`` client that runs a BashSession's tmux commands.

Starting a tmux client for every command costs about 3 ms (fork, exec, socket handshake), and
a bash ``echo`` needs several commands (send the keys, capture the pane, clear the screen), so
those starts were most of an action's round trip. A client in control mode (tmux(1), CONTROL
MODE) reads commands on stdin and answers each one between ``%begin <t> <n> <f>`` and
``%end <t> <n> <f>`` (or ``%error …``) lines, in about 0.1 ms.

The client also tells what the session's panes print (``%output %<pane> <text>``), as soon as
tmux has read it: that is how the session learns, without polling, that bash has printed a
prompt (``watch`` counts the lines carrying a marker). A reader thread takes everything the
client writes, so tmux never has to hold output back for it, however much a command prints.
Other notifications (``%session-changed`` and the like) are skipped. A control client without
a size of its own does not resize the session's windows.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections import deque
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
    """Runs tmux commands through one control-mode client attached to ``session``.

    ``watch``: printable ASCII text (no backslash) to look for in the panes' output;
    ``marks_seen`` counts its appearances and ``wait_for_mark`` waits for the next one.
    """

    def __init__(
        self, session: str, socket_name: str | None = None, watch: str | None = None
    ) -> None:
        command = ["tmux"]
        if socket_name:
            command += ["-L", socket_name]
        command += ["-C", "attach-session", "-t", session]
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
        # tmux escapes only control characters and backslashes in %output, so printable
        # text shows as is; the tail of the last output line catches a mark split in two.
        self._mark = watch.encode() if watch else None
        self._tail = b""
        self._marks = 0
        # Per answer: failed, its lines, and the marks seen when it came.
        self._answers: deque[tuple[bool, list[str], int]] = deque()
        self._marks_at_answer = 0
        self._gone = False  # the client's output has ended
        self._changed = threading.Condition()
        self._lock = threading.Lock()  # one command line in flight
        self._reader = threading.Thread(target=self._read_all, name="tmux-control", daemon=True)
        self._reader.start()
        try:
            with self._lock:
                self._take_answers(1)  # the answer to attach-session itself
        except (TmuxControlError, TmuxControlClosed):
            self.close()
            raise

    def run(self, *commands: Sequence[str]) -> list[str]:
        """Run one or more commands (each a list of arguments) in one go; returns the output.

        Several commands form one command line (``a ; b``), so tmux runs them back to back
        without anything in between (pane output included: what a ``capture-pane`` shows
        has not been answered to a ``send-keys`` before it).
        """
        line = " ; ".join(" ".join(quote(arg) for arg in command) for command in commands)
        with self._lock:
            if self._process.poll() is not None or self._gone:
                raise TmuxControlClosed("the tmux control client has exited", sent=False)
            try:
                data = memoryview(line.encode() + b"\n")
                while data:  # an unbuffered pipe may take a long line in parts
                    data = data[self._stdin.write(data) or 0 :]
            except (BrokenPipeError, ValueError) as exc:
                raise TmuxControlClosed("the tmux control client has exited", sent=False) from exc
            return self._take_answers(len(commands))

    @property
    def marks_seen(self) -> int:
        """How many times the watched text has appeared in the output so far."""
        return self._marks

    @property
    def marks_before_answer(self) -> int:
        """``marks_seen`` as it was when the last answer came.

        tmux writes what a pane printed and its answers in the order it did things, so any
        later mark was printed after the last command ran (a pane's answer to keys sent).
        """
        return self._marks_at_answer

    def wait_for_mark(self, seen: int, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until more than ``seen`` marks have appeared.

        By then tmux has taken the output into the pane, so a capture shows it. False on
        timeout, or at once when the client is gone.
        """
        with self._changed:
            self._changed.wait_for(lambda: self._marks > seen or self._gone, timeout)
            return self._marks > seen

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
        self._reader.join(timeout=2)
        if self._process.stdout is not None:
            self._process.stdout.close()

    # -- answers ------------------------------------------------------------------------------

    def _take_answers(self, count: int) -> list[str]:
        """The output of the next ``count`` answers; tmux skips the rest after an error."""
        output: list[str] = []
        with self._changed:
            for _ in range(count):
                if not self._changed.wait_for(
                    lambda: bool(self._answers) or self._gone,
                    _ANSWER_TIMEOUT_SECONDS,
                ):
                    raise TmuxControlClosed(
                        f"tmux did not answer within {_ANSWER_TIMEOUT_SECONDS}s", sent=True
                    )
                if not self._answers:
                    raise TmuxControlClosed("the tmux control client has exited", sent=True)
                failed, lines, self._marks_at_answer = self._answers.popleft()
                if failed:
                    raise TmuxControlError("\n".join(lines) or "tmux command failed")
                output += lines
        return output

    # -- the reader thread ----------------------------------------------------------------------

    def _read_all(self) -> None:
        buffer = bytearray()
        # Inside an answer: its closing lines, and how far the buffer has been searched.
        end = error = b""
        searched = 0
        try:
            while chunk := os.read(self._stdout_fd, 1 << 16):
                buffer += chunk
                done = 0  # bytes of the buffer dealt with
                while True:
                    if end:
                        # An answer's body is searched as a whole for its end (a capture
                        # of a whole history is thousands of lines: no loop over them).
                        at, failed = _find_line(buffer, end, done, searched), False
                        if at < 0:
                            at, failed = _find_line(buffer, error, done, searched), True
                        if at < 0:
                            searched = max(done, len(buffer) - len(error))
                            break
                        self._answer(failed, bytes(buffer[done:at]))
                        done = at + len(error if failed else end)
                        end = error = b""
                        continue
                    newline = buffer.find(b"\n", done)
                    if newline < 0:
                        break
                    line = bytes(buffer[done:newline])
                    done = newline + 1
                    if line.startswith(b"%output "):
                        self._output(line)
                    elif line.startswith(b"%begin "):
                        key = line[len(b"%begin ") :]
                        end, error = b"%end " + key + b"\n", b"%error " + key + b"\n"
                        searched = done
                    # Other notifications are of no use here.
                del buffer[:done]
                searched -= done
        except OSError:
            pass
        with self._changed:
            self._gone = True
            self._changed.notify_all()

    def _answer(self, failed: bool, body: bytes) -> None:
        lines = body.decode("utf-8", errors="backslashreplace").split("\n")[:-1]
        with self._changed:
            self._answers.append((failed, lines, self._marks))
            self._changed.notify_all()

    def _output(self, line: bytes) -> None:
        if self._mark is None:
            return
        # "%output %<pane> <text>"
        text = self._tail + line.partition(b" ")[2].partition(b" ")[2]
        self._tail = text[1 - len(self._mark) :] if len(self._mark) > 1 else b""
        found = text.count(self._mark)
        if found:
            with self._changed:
                self._marks += found
                self._changed.notify_all()


def _find_line(buffer: bytearray, line: bytes, start: int, searched: int) -> int:
    """Where ``line`` (newline included) stands as a whole line in ``buffer``, or -1.

    ``start`` is a line start; nothing before ``searched`` holds it.
    """
    if searched <= start and buffer.startswith(line, start):
        return start
    at = buffer.find(b"\n" + line, max(start, searched - 1))
    return at + 1 if at >= 0 else -1
