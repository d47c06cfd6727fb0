"""Drive one terminal program in a detached tmux session, the way a user at a keyboard would.

Every :class:`TmuxTerminal` owns a tmux server of its own (``tmux -L <socket>``), so tests never
share panes, keys or options, and :meth:`TmuxTerminal.close` ends everything it started with
one ``kill-server``. Socket names start with ``$OPENHANDS_TMUX_SOCKET_PREFIX`` (set by
``tests/conftest.py``), so a run that dies half-way still has its servers ended.

Reading the terminal: :meth:`screen` is ``capture-pane`` of the whole history (scrolled-off
lines included) with wrapped lines joined. Lines keep their index for the life of the pane
(the history only grows, and a cleared screen is scrolled into it), so a test can
:meth:`mark` "now" and look only at what appeared afterwards. :meth:`wait_for` polls with a
deadline; there are no fixed sleeps anywhere.

The program's exit status is kept: it runs under a small bash wrapper that prints
``__TMUX_TERMINAL_EXIT__=<status>`` when it ends and then idles, so the screen stays readable
and :meth:`wait_exit` reads the status from it. (tmux's own ``#{pane_dead_status}`` is not
used: in some sandboxes tmux never reaps a pane's process that ends on its own.)
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
import termios
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_WIDTH = 160
DEFAULT_HEIGHT = 50
POLL_INTERVAL_S = 0.1
HISTORY_LIMIT = 100_000
# A menu's selected line: blanks or a frame's left border, then `> entry`.
_BORDER = " \t│┃║|"
_SELECTED = re.compile(r"^[ \t│┃║|]*(?P<marker>>) \S")
_FRAME_RIGHT = re.compile(r"\s*[│┃║|]?\s*$")
_EXIT_MARKER = "__TMUX_TERMINAL_EXIT__="
_EXIT_LINE = re.compile(r"^" + re.escape(_EXIT_MARKER) + r"(\d+)$", re.MULTILINE)
# Runs the program ("$@"), then prints its status and idles until the server is killed. The
# INT/QUIT traps keep the wrapper alive when Ctrl-C reaches the whole foreground process
# group; a trap handler (unlike an ignored signal) is reset for the program by exec.
_WRAPPER = 'trap : INT QUIT; "$@"; status=$?; printf "\\n%s%d\\n" "$0" "$status"; exec sleep 86400'

Pattern = str | re.Pattern[str]


class TerminalError(AssertionError):
    """Something the test waited for did not happen; carries the end of the screen."""


@dataclass(frozen=True)
class Menu:
    """A vertical choice list as shown: its entries and which one carries the ``> `` marker."""

    entries: tuple[str, ...]
    selected: int


@dataclass(frozen=True)
class Found:
    """Where :meth:`TmuxTerminal.wait_for` found its pattern."""

    line: int  # absolute index of the line the match starts on (see TmuxTerminal.mark)
    text: str  # the matched text
    match: re.Match[str]

    def group(self, name: int | str = 0) -> str:
        value = self.match.group(name)
        return "" if value is None else str(value)


def socket_prefix() -> str:
    return os.environ.get("OPENHANDS_TMUX_SOCKET_PREFIX") or f"openhands-test-{os.getpid()}"


def _compile(pattern: Pattern) -> re.Pattern[str]:
    return pattern if isinstance(pattern, re.Pattern) else re.compile(re.escape(pattern))


class TmuxTerminal:
    """One program running in a ``width`` x ``height`` tmux pane of a private tmux server."""

    def __init__(
        self, name: str = "term", width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT
    ) -> None:
        if width < 120 or height < 40:
            raise ValueError("the CLI contract is checked in a pane of at least 120x40")
        safe = re.sub(r"[^A-Za-z0-9_-]+", "-", name)[:40]
        self.socket = f"{socket_prefix()}-{safe}-{uuid.uuid4().hex[:8]}"
        self.width = width
        self.height = height
        self.target = "main:0.0"
        self._mark = 0
        self._last_input = -1  # the line of the last prompt :meth:`submit` typed into
        self._started = False
        self._config_dir = Path(tempfile.mkdtemp(prefix="tmux-terminal-"))

    # --- lifecycle ---------------------------------------------------------------------

    def start(
        self,
        command: Sequence[str],
        env: Mapping[str, str],
        cwd: Path | str,
        term: str = "xterm-256color",
    ) -> None:
        """Run ``command`` (an argv list, no shell) in the pane, with exactly ``env`` and ``cwd``.

        The tmux server is started with ``env`` as its environment, so the pane sees the same
        (tmux only adds ``TMUX``/``TMUX_PANE``); ``TERM`` is ``term``.
        """
        if self._started:
            raise RuntimeError("this terminal already runs a program")
        config = self._config_dir / "tmux.conf"
        # remain-on-exit from the very first instant (a config file, not a later set-option):
        # a program that exits at once (`--version`) must still leave its status behind.
        config.write_text(
            "\n".join(
                [
                    "set -g remain-on-exit on",
                    f"set -g history-limit {HISTORY_LIMIT}",
                    f'set -g default-terminal "{term}"',
                    f"set -g default-size {self.width}x{self.height}",
                    "set -g status off",
                    # Keys go to the program untouched: no prefix key, no Esc delay.
                    "set -g prefix None",
                    "set -g escape-time 0",
                    "set -g scroll-on-clear on",
                    "",
                ]
            )
        )
        server_env = {key: value for key, value in env.items() if not key.startswith("TMUX")}
        server_env["TERM"] = term
        self._tmux(
            "-f",
            str(config),
            "new-session",
            "-d",
            "-s",
            "main",
            "-x",
            str(self.width),
            "-y",
            str(self.height),
            "-c",
            str(cwd),
            "--",
            "bash",
            "-c",
            _WRAPPER,
            _EXIT_MARKER,
            *command,
            env=server_env,
        )
        self._started = True

    def close(self) -> None:
        """End the tmux server (and so the program, by SIGHUP) and remove the socket."""
        subprocess.run(
            ["tmux", "-L", self.socket, "kill-server"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=30,
        )
        socket_dir = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (socket_dir / self.socket).unlink(missing_ok=True)
        for path in self._config_dir.iterdir():
            path.unlink(missing_ok=True)
        self._config_dir.rmdir()

    def __enter__(self) -> TmuxTerminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- keys ----------------------------------------------------------------------------

    def send_keys(self, *keys: str) -> None:
        """Press named keys, in order: ``Enter``, ``Down``, ``Up``, ``Tab``, ``Escape``, ``C-p``,
        ``C-c``, ``C-d``, ``BSpace`` … (tmux key names)."""
        self._tmux("send-keys", "-t", self.target, *keys)

    def type(self, text: str) -> None:
        """Type ``text`` literally (no key-name lookup), without pressing Enter."""
        self._tmux("send-keys", "-t", self.target, "-l", "--", text)

    def submit(
        self, text: str, since: int | None = None, timeout: float = 60.0, raw: bool = True
    ) -> int:
        """Wait for a prompt (:meth:`wait_input`), type ``text`` and press Enter.

        By default the prompt must be at or after the last :meth:`mark` and below the prompt
        of the previous :meth:`submit` (which may still be on screen, waiting for the program
        to take the Enter). Returns the prompt's line, which also becomes the mark: later
        waits look from the typed line on.
        """
        start = max(self._mark, self._last_input + 1) if since is None else since
        line = self.wait_input(start, timeout, raw)
        self._mark = self._last_input = line
        self.type(text)
        self.send_keys("Enter")
        return line

    # --- reading -------------------------------------------------------------------------

    def screen(self) -> str:
        """The whole pane: its history and the visible screen, wrapped lines joined."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", self.target)

    def lines(self) -> list[str]:
        return self.screen().split("\n")

    def since(self, mark: int | None = None) -> str:
        """What the pane shows from line ``mark`` (default: the last :meth:`mark`) on."""
        start = self._mark if mark is None else mark
        return "\n".join(self.lines()[start:])

    def tail(self, count: int = 60) -> str:
        """The last ``count`` lines that show something, for failure messages."""
        lines = [line for line in self.lines() if line.strip()]
        return "\n".join(lines[-count:])

    def mark(self) -> int:
        """Remember the line the cursor is on: later waits look from there on by default."""
        self._mark = self.cursor()[0]
        return self._mark

    def cursor(self) -> tuple[int, int]:
        """(line, column) of the cursor. The line counts lines of the joined capture, as
        :meth:`lines` returns them: it is the history and the screen up to the cursor,
        captured the same way."""
        x, y = self._display("#{cursor_x} #{cursor_y}").split()
        upto = self._tmux("capture-pane", "-p", "-J", "-S", "-", "-E", y, "-t", self.target)
        return max(0, len(upto.split("\n")) - 2), int(x)  # the output ends with a newline

    def reads_keys(self) -> bool:
        """Whether the program has the terminal in non-canonical ("raw") mode, i.e. a line
        editor, menu or key listener is reading keys one by one."""
        tty = self._display("#{pane_tty}")
        fd = os.open(tty, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            return not termios.tcgetattr(fd)[3] & termios.ICANON
        finally:
            os.close(fd)

    def wait_input(self, since: int | None = None, timeout: float = 60.0, raw: bool = True) -> int:
        """Wait until a prompt waits for text at or after line ``since`` (default: the last
        :meth:`mark`): the cursor sits after some prompt text on its line (a menu or a bare
        key listener leaves it at the start of a line) and, with ``raw`` (line editors such as
        prompt_toolkit's or readline), the terminal is in raw mode, so keys typed now are
        read by that editor. ``raw=False`` is for programs that read cooked lines
        (``input()`` without readline). Returns the prompt's line."""
        start = self._mark if since is None else since
        deadline = time.monotonic() + timeout
        while True:
            line, column = self.cursor()
            if line >= start and column > 0 and (not raw or self.reads_keys()):
                return line
            status = self.exit_status()
            if status is not None:
                raise TerminalError(
                    f"the program exited (status {status}) instead of asking for input; "
                    f"screen:\n{self.tail()}"
                )
            if time.monotonic() >= deadline:
                raise TerminalError(
                    f"no input prompt after line {start} within {timeout:g} s; screen:\n"
                    f"{self.tail()}"
                )
            time.sleep(POLL_INTERVAL_S)

    def find(self, pattern: Pattern, since: int | None = None) -> Found | None:
        """The first match of ``pattern`` at or after line ``since`` (default: the last mark)."""
        start = self._mark if since is None else since
        lines = self.lines()
        text = "\n".join(lines[start:])
        match = _compile(pattern).search(text)
        if match is None:
            return None
        line = start + text.count("\n", 0, match.start())
        return Found(line=line, text=match.group(0), match=match)

    def wait_for(self, pattern: Pattern, timeout: float = 60.0, since: int | None = None) -> Found:
        """Poll the pane until ``pattern`` (text, or a compiled regex) appears at or after line
        ``since`` (default: the last :meth:`mark`). Fails with the screen when the deadline
        passes or the program ends without showing it."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.find(pattern, since)
            if found is not None:
                return found
            if self.exit_status() is not None:
                found = self.find(pattern, since)  # output written just before the exit
                if found is not None:
                    return found
                raise TerminalError(
                    f"the program exited (status {self.exit_status()}) without showing "
                    f"{_describe(pattern)}; screen:\n{self.tail()}"
                )
            if time.monotonic() >= deadline:
                raise TerminalError(
                    f"{_describe(pattern)} did not appear within {timeout:g} s; screen:\n"
                    f"{self.tail()}"
                )
            time.sleep(POLL_INTERVAL_S)

    def menu(self, since: int) -> Menu | None:
        """The choice list whose ``> `` marker is lowest on the screen at or after ``since``.

        Entries are the lines around the marked one that have ``> `` or two spaces at the
        marker's column, with only blanks or a frame border before it (menus may be drawn
        inside frames, with or without padding).
        """
        lines = [_FRAME_RIGHT.sub("", line) for line in self.lines()[since:]]
        selected = column = None
        for index in range(len(lines) - 1, -1, -1):
            found = _SELECTED.match(lines[index])
            if found:
                selected, column = index, found.start("marker")
                break
        if selected is None or column is None:
            return None

        def is_entry(line: str) -> bool:
            return (
                line[column : column + 2] in ("> ", "  ")
                and len(line) > column + 2
                and not line[column + 2].isspace()
                and not line[:column].strip(_BORDER)
            )

        first = selected
        while first > 0 and is_entry(lines[first - 1]):
            first -= 1
        last = selected
        while last + 1 < len(lines) and is_entry(lines[last + 1]):
            last += 1
        entries = tuple(line[column + 2 :].strip() for line in lines[first : last + 1])
        return Menu(entries=entries, selected=selected - first)

    def choose(
        self, question: Pattern, entry: str, timeout: float = 60.0, since: int | None = None
    ) -> Menu:
        """Wait for the menu asking ``question`` (at or after line ``since``, default: the
        last :meth:`mark`), move the ``> `` marker to ``entry`` with the arrow keys and press
        Enter. Returns the menu as it was shown.

        ``entry`` is an entry's full text or its beginning. The marker is read back from the
        screen after every key, so the menu's selection display is checked on the way.
        """
        at = self.wait_for(question, timeout, since).line
        deadline = time.monotonic() + timeout
        menu = self._wait_menu(at, None, deadline)
        # An exact entry wins over one that merely starts with ``entry``.
        matches = [i for i, e in enumerate(menu.entries) if e == entry]
        matches += [i for i, e in enumerate(menu.entries) if e != entry and e.startswith(entry)]
        if not matches:
            raise TerminalError(
                f"menu {_describe(question)} has no entry {entry!r}: {list(menu.entries)}; "
                f"screen:\n{self.tail()}"
            )
        target = matches[0]
        position = menu.selected
        while position != target:
            step = 1 if target > position else -1
            self.send_keys("Down" if step > 0 else "Up")
            position += step
            self._wait_menu(at, position, deadline)
        self.mark()
        self.send_keys("Enter")
        return menu

    def _wait_menu(self, since: int, selected: int | None, deadline: float) -> Menu:
        """Wait for a menu below line ``since`` (with entry ``selected`` marked, if given).

        A menu is taken only when two reads in a row show it the same: the terminal may be
        read while the menu is still being drawn (its last entry cut short)."""
        previous: Menu | None = None
        while True:
            menu = self.menu(since)
            wanted = menu is not None and (selected is None or menu.selected == selected)
            if wanted and menu == previous:
                return menu
            previous = menu if wanted else None
            if self.exit_status() is not None:
                raise TerminalError(f"the program exited inside a menu; screen:\n{self.tail()}")
            if time.monotonic() >= deadline:
                raise TerminalError(
                    f"the menu did not show the expected selection (now {menu}); screen:\n"
                    f"{self.tail()}"
                )
            time.sleep(POLL_INTERVAL_S)

    # --- exit ----------------------------------------------------------------------------

    def exit_status(self) -> int | None:
        """The program's exit status once it has ended (``128 + n`` for signal ``n``), else None."""
        found = _EXIT_LINE.search(self.screen())
        if found is not None:
            return int(found.group(1))
        # The wrapper itself died (killed from outside): fall back to what tmux knows.
        fields = self._display("#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}").split("|")
        if fields[0] != "1":
            return None
        for value, offset in zip(fields[1:], (0, 128), strict=False):
            if value.isdigit():
                return offset + int(value)
        return -1

    def wait_exit(self, timeout: float = 60.0) -> int:
        """Wait until the program ends and return its exit status."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.exit_status()
            if status is not None:
                return status
            if time.monotonic() >= deadline:
                raise TerminalError(f"the program still runs after {timeout:g} s:\n{self.tail()}")
            time.sleep(POLL_INTERVAL_S)

    # --- tmux ----------------------------------------------------------------------------

    def _display(self, fmt: str) -> str:
        return self._tmux("display-message", "-p", "-t", self.target, fmt).strip()

    def _tmux(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        command = ["tmux", "-L", self.socket, *args]
        result = subprocess.run(
            command,
            capture_output=True,
            text=True,
            errors="replace",
            stdin=subprocess.DEVNULL,
            env=dict(env) if env is not None else None,
            timeout=30,
        )
        if result.returncode != 0:
            raise TerminalError(f"{shlex.join(command)} failed: {result.stderr.strip()}")
        return result.stdout


def _describe(pattern: Pattern) -> str:
    return f"/{pattern.pattern}/" if isinstance(pattern, re.Pattern) else repr(pattern)
