"""BashSession: one interactive bash in a tmux pane, driven command by command (runtime.md §4).

The shell prints a JSON block (``###PS1JSON###`` … ``###PS1END###``) before every prompt, so a
command has finished exactly when a new block appears; the block carries the exit code and the
working directory. Commands that outlive a timeout keep running in the pane; the agent then
reads more output with an empty command, types into the process with ``is_input`` or stops it
with a ``C-<x>`` key.
"""

from __future__ import annotations

import itertools
import os
import re
import time
import uuid
from collections.abc import Iterator
from enum import StrEnum

import libtmux

from openhands.core.logger import openhands_logger as logger
from openhands.events.action import CmdRunAction
from openhands.events.observation import CmdOutputObservation, ErrorObservation
from openhands.events.observation.commands import (
    CMD_OUTPUT_PS1_BEGIN,
    CMD_OUTPUT_PS1_END,
    CmdOutputMetadata,
)
from openhands.runtime.utils import bash_constants as text
from openhands.runtime.utils.bash_commands import (
    escape_bash_special_chars,  # noqa: F401 - re-exported (python-api.md §9)
    escape_for_tmux,
    is_special_key,
    split_bash_commands,
)
from openhands.runtime.utils.tmux_control import (
    TmuxControl,
    TmuxControlClosed,
    TmuxControlError,
)

POLL_INTERVAL = 0.5
# The pane is looked at as soon as the tmux control client reports a new prompt (see
# TmuxControl's `watch`), and on this schedule besides, for the timeouts; it backs off to the
# steady interval. A look costs ~0.2 ms of tmux's time, taken from bash when CPUs are few.
_FIRST_POLLS = (0.005, 0.01, 0.02, 0.04, 0.08, 0.15, 0.3)
# Quick first looks where no prompt may come to wake us: without a control client, and for
# an empty command (a process that has finished meanwhile left its prompt already). Short
# commands then return within milliseconds (bash needs ~3 ms for an `echo` and its prompt).
_FIRST_POLLS_QUICK = (0.001,) * 4 + (0.002,) * 4 + (0.005, 0.01, 0.02, 0.04, 0.08, 0.15, 0.3)
HISTORY_LIMIT = 10_000
PANE_SIZE = 1000  # columns and rows
DEFAULT_NO_CHANGE_TIMEOUT = 10
_PS1_BEGIN_MARK = CMD_OUTPUT_PS1_BEGIN.strip()
_PS1_END_MARK = CMD_OUTPUT_PS1_END.strip()
_READY_WAIT_SECONDS = 10.0
# How long to wait for bash to redraw its prompt after C-l before the history is cleared
# anyway (the old fixed pause was 0.1 s on every command).
_CLEAR_WAIT_SECONDS = 0.5
# Backoff between attempts to start a session while the tmux server exits (about 3 s in all).
_SERVER_RESTART_DELAYS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 1.0)
_SERVER_GOING_AWAY = ("server exited unexpectedly", "lost server", "Connection refused")


class BashCommandStatus(StrEnum):
    CONTINUE = "continue"
    COMPLETED = "completed"
    NO_CHANGE_TIMEOUT = "no_change_timeout"
    HARD_TIMEOUT = "hard_timeout"


_TIMED_OUT = (BashCommandStatus.NO_CHANGE_TIMEOUT, BashCommandStatus.HARD_TIMEOUT)


def su_target(username: str | None) -> str | None:
    """The user to ``su`` to for sandbox processes (bash, Jupyter), or None to run as is."""
    su_enabled = os.environ.get("SU_TO_USER", "true").strip().lower() in ("true", "1")
    switchable = {"root", "openhands", os.environ.get("RUNTIME_USERNAME")}
    if su_enabled and username and username in switchable:
        return username
    return None


def shell_command_for(username: str | None) -> str:
    """``su <user> -`` for the users the server may switch to, else the server's own bash.

    Without ``su`` the shell inherits the server's environment and skips the host user's
    rc files: those can be slow or block (pyenv's rehash waits 60 s on a stale lock), and
    the environment the server was started with is already the user's."""
    target = su_target(username)
    return f"su {target} -" if target else "/bin/bash --noprofile --norc"


# The prompt function's own names; `__openhands_` keeps them out of the agent's way.
_PROMPT_FUNCTION = "__openhands_prompt"
# PS1 expansions that fork: `$(pwd)` a subshell, `$(which python)` a subshell and a shell
# script (~0.6 ms and ~2.6 ms here, on every command). The prompt function computes the same
# values with builtins, so the metadata block is unchanged.
_FORKING_EXPANSIONS = {
    "$?": "${__oh_status}",
    "$(pwd)": "${PWD}",
    r'$(which python 2>/dev/null || echo \\"\\")': "${__oh_python}",
}


def prompt_setup_command() -> str:
    """The line typed into a new shell: a function that sets PS1 to the metadata block of
    ``CmdOutputMetadata.to_ps1_prompt()`` (runtime.md §4.2) without forking, run as
    PROMPT_COMMAND; and an empty PS2.

    ``py_interpreter_path`` is found as Debian's ``which`` finds it: the first PATH entry
    (an empty one meaning ``.``) holding a regular executable file ``python``. Where the
    template's ``echo`` fallback would run (no python, or no ``which`` on PATH) it prints a
    lone backslash, so that is the value then too. The exit code
    is taken as the function starts, before anything in it changes ``$?``; the function
    returns it again. Only POSIX-era bash features are used (macOS ships bash 3.2).
    """
    ps1 = CmdOutputMetadata.to_ps1_prompt()
    for expansion, replacement in _FORKING_EXPANSIONS.items():
        if expansion not in ps1:
            raise AssertionError(f"the PS1 template no longer contains {expansion}")
        ps1 = ps1.replace(expansion, replacement)
    body = (
        "local __oh_status=$? __oh_python='\\\\' __oh_found= __oh_which= __oh_dir "
        "__oh_path=$PATH __oh_glob=1 IFS=:; "
        "case $- in *f*) __oh_glob=0 ;; esac; set -f; "
        "case $__oh_path in *[!:]:) __oh_path=$__oh_path: ;; esac; "
        "for __oh_dir in $__oh_path; do "
        '[ -z "$__oh_dir" ] && __oh_dir=.; '
        '[ -z "$__oh_found" ] && [ -f "$__oh_dir/python" ] && [ -x "$__oh_dir/python" ] '
        "&& __oh_found=$__oh_dir/python; "
        '[ -z "$__oh_which" ] && [ -f "$__oh_dir/which" ] && [ -x "$__oh_dir/which" ] '
        "&& __oh_which=1; "
        '[ -n "$__oh_found" ] && [ -n "$__oh_which" ] && break; '
        "done; "
        '[ -n "$__oh_found" ] && [ -n "$__oh_which" ] && __oh_python=$__oh_found; '
        "[ $__oh_glob = 1 ] && set +f; "
        f'export PS1="{ps1}"; '
        "return $__oh_status"
    )
    return (
        f"{_PROMPT_FUNCTION}() {{ {body}; }}; "
        f'export PROMPT_COMMAND={_PROMPT_FUNCTION}; export PS2=""'
    )


def no_change_timeout_from_env() -> int:
    try:
        return int(os.environ.get("NO_CHANGE_TIMEOUT_SECONDS", DEFAULT_NO_CHANGE_TIMEOUT))
    except ValueError:
        return DEFAULT_NO_CHANGE_TIMEOUT


class BashSession:
    def __init__(
        self,
        work_dir: str,
        username: str | None = None,
        no_change_timeout_seconds: int | None = None,
        tmux_socket_name: str | None = None,
    ) -> None:
        self.work_dir = os.path.abspath(work_dir)
        self.username = username
        self.no_change_timeout_seconds = (
            no_change_timeout_seconds
            if no_change_timeout_seconds is not None
            else no_change_timeout_from_env()
        )
        self._socket_name = tmux_socket_name
        self._cwd = self.work_dir
        # C-l was sent after the last command; its history is cleared before the next one.
        self._clear_pending = False
        # TmuxControl.marks_seen when that C-l was sent: one more means bash has redrawn.
        self._clear_marks = 0
        self._control: TmuxControl | None = None
        self._initialized = False
        self._closed = False
        self.prev_status: BashCommandStatus | None = None
        self.prev_output = ""

    # -- lifecycle ------------------------------------------------------------------------

    def initialize(self) -> None:
        self.server = libtmux.Server(socket_name=self._socket_name)
        self.session = self._new_session()
        self.server.cmd("set-option", "-g", "history-limit", str(HISTORY_LIMIT))
        # A window made after the option change gets the new history limit.
        first_window = self.session.active_window
        self.window = self.session.new_window(
            window_name="bash",
            window_shell=shell_command_for(self.username),
            start_directory=self.work_dir,
        )
        first_window.kill()
        pane = self.window.active_pane
        assert pane is not None
        self.pane = pane
        self._start_control_client()
        seen = self._marks_seen()
        self._send_command(prompt_setup_command(), False)
        self._wait_for_prompt(seen)
        self._clear_screen()
        self._initialized = True
        logger.debug("Bash session %s ready in %s", self.session.session_name, self.work_dir)

    def _new_session(self) -> libtmux.Session:
        """A new tmux session (starting the tmux server if needed), retried when it meets a
        server that is going away.

        The tmux server exits once its last session is gone. A session started right then
        (a bash session closed and another one opened on the same socket, more likely on a
        busy machine) reaches the exiting server and fails with "server exited
        unexpectedly" (or "lost server"); a moment later the next attempt starts a fresh
        server. Other errors are raised at once."""
        name = f"openhands-{self.username}-{uuid.uuid4()}"
        for delay in (*_SERVER_RESTART_DELAYS, None):
            try:
                return self.server.new_session(
                    session_name=name,
                    start_directory=self.work_dir,
                    # The name is new: no `has-session` round trip to look for an old one.
                    kill_session=False,
                    # A placeholder, not a shell: it is killed below, and a shell killed while
                    # reading its rc files can leave their locks behind.
                    window_command="cat",
                    x=PANE_SIZE,
                    y=PANE_SIZE,
                )
            except libtmux.exc.LibTmuxException as exc:
                if delay is None or not _server_going_away(str(exc)):
                    raise
                logger.debug("tmux server was going away (%s); starting a new one", exc)
                time.sleep(delay)
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._closed or not self._initialized:
            return
        self._closed = True
        if self._control is not None:
            self._control.close()
            self._control = None
        try:
            self.session.kill()
        except Exception as exc:  # the tmux server may already be gone
            logger.debug("Closing tmux session failed: %s", exc)

    @property
    def cwd(self) -> str:
        return self._cwd

    # -- execution ---------------------------------------------------------------------------

    def execute(self, action: CmdRunAction) -> CmdOutputObservation | ErrorObservation:
        if not self._initialized or self._closed:
            raise RuntimeError("Bash session is not initialized")
        command = action.command.strip()
        if self.prev_status in (None, BashCommandStatus.COMPLETED):
            if command == "":
                return self._plain(text.NO_PREVIOUS_COMMAND_LOGS)
            if action.is_input:
                return self._plain(text.NO_PREVIOUS_COMMAND_INPUT)

        statements = split_bash_commands(command)
        if len(statements) > 1:
            return ErrorObservation(content=text.multiple_commands_error(statements))

        clear_deadline = time.monotonic() + _CLEAR_WAIT_SECONDS
        if self._clear_pending:
            self._await_redraw(clear_deadline)
        marks = self._marks_seen()
        if command != "" and self.prev_status in (None, BashCommandStatus.COMPLETED):
            # Nothing runs, so the command goes out whatever the pane shows: one round trip.
            pane = self._capture_and_send(command, action.is_input, clear_deadline)
            sent = True
        else:
            pane = self._finish_clear(clear_deadline) if self._clear_pending else self._pane_text()
            sent = False
        initial_blocks = len(CmdOutputMetadata.matches_ps1_metadata(pane))
        still_running = not pane.rstrip().endswith(_PS1_END_MARK)
        if (
            self.prev_status in _TIMED_OUT
            and still_running
            and not action.is_input
            and command != ""
        ):
            return self._busy(command, pane, action.hidden)

        started = last_change = time.monotonic()
        initial_pane = last_pane = pane
        if command != "" and not sent:
            marks = self._marks_seen()
            self._send_command(command, action.is_input)

        for delay in self._poll_delays(command):
            marks = self._wait_for_prompt_mark(marks, delay)
            now = time.monotonic()
            pane = self._pane_text()
            if pane != last_pane:
                last_pane, last_change = pane, now
            blocks = CmdOutputMetadata.matches_ps1_metadata(pane)
            # An unchanged pane still ends with the old prompt when bash has not echoed the
            # command yet; only a waiting (empty) command may finish on it.
            at_prompt = pane.rstrip().endswith(_PS1_END_MARK) and (
                pane != initial_pane or command == ""
            )
            if len(blocks) > initial_blocks or at_prompt:
                return self._completed(command, pane, blocks, action.hidden)
            if not action.blocking and now - last_change >= self.no_change_timeout_seconds:
                suffix = text.no_change_timeout_suffix(self.no_change_timeout_seconds)
                return self._timed_out(
                    BashCommandStatus.NO_CHANGE_TIMEOUT, command, pane, suffix, action.hidden
                )
            if action.timeout is not None and now - started >= action.timeout:
                suffix = text.hard_timeout_suffix(action.timeout)
                return self._timed_out(
                    BashCommandStatus.HARD_TIMEOUT, command, pane, suffix, action.hidden
                )
        raise AssertionError("unreachable: the poll delays never run out")

    # -- observations --------------------------------------------------------------------------

    @staticmethod
    def _plain(content: str) -> CmdOutputObservation:
        return CmdOutputObservation(content=content, command="", metadata=CmdOutputMetadata())

    def _busy(self, command: str, pane: str, hidden: bool) -> CmdOutputObservation:
        metadata = CmdOutputMetadata(suffix=text.busy_suffix(command))
        raw = _join_segments(pane, CmdOutputMetadata.matches_ps1_metadata(pane))
        output = self._new_output(command, raw, metadata, text.PREVIOUS_OUTPUT_PREFIX)
        return CmdOutputObservation(
            content=output, command=command, metadata=metadata, hidden=hidden
        )

    def _timed_out(
        self,
        status: BashCommandStatus,
        command: str,
        pane: str,
        suffix: str,
        hidden: bool,
    ) -> CmdOutputObservation:
        self.prev_status = status
        metadata = CmdOutputMetadata(suffix=suffix)
        raw = _join_segments(pane, CmdOutputMetadata.matches_ps1_metadata(pane))
        output = self._new_output(command, raw, metadata, text.PREVIOUS_OUTPUT_PREFIX)
        return CmdOutputObservation(
            content=output, command=command, metadata=metadata, hidden=hidden
        )

    def _completed(
        self, command: str, pane: str, blocks: list[re.Match[str]], hidden: bool
    ) -> CmdOutputObservation:
        metadata = CmdOutputMetadata.from_ps1_match(blocks[-1])
        if metadata.working_dir and metadata.working_dir != self._cwd:
            self._cwd = metadata.working_dir
        if len(blocks) == 1:
            # The prompt before this command scrolled out of the tmux history.
            raw = pane[: blocks[0].start()]
            metadata.prefix = text.truncated_history_prefix(len(raw.splitlines()))
        else:
            raw = _join_segments(pane, blocks)
        key = command if is_special_key(command) else None
        metadata.suffix = text.completed_suffix(metadata.exit_code, key)
        output = self._new_output(command, raw, metadata, continue_prefix="")
        self.prev_status = BashCommandStatus.COMPLETED
        self.prev_output = ""
        self._clear_screen()
        return CmdOutputObservation(
            content=output, command=command, metadata=metadata, hidden=hidden
        )

    def _new_output(
        self, command: str, raw: str, metadata: CmdOutputMetadata, continue_prefix: str
    ) -> str:
        """The part of ``raw`` not reported yet, without the echoed command."""
        output = raw
        if self.prev_output:
            output = raw.removeprefix(self.prev_output)
            metadata.prefix = continue_prefix
        self.prev_output = raw
        output = output.lstrip().removeprefix(command.lstrip()).lstrip()
        return output.rstrip()

    # -- tmux ------------------------------------------------------------------------------------

    def _tmux(self, *commands: list[str]) -> list[str]:
        """Run tmux commands (several run back to back); returns their output lines.

        They go through the session's control-mode client; without one, each call starts
        a tmux process (about 3 ms; an `echo` needs three such calls).
        """
        if self._control is not None:
            try:
                return self._control.run(*commands)
            except TmuxControlClosed as exc:
                # Without an answer the client is of no further use (it may be out of step).
                logger.warning("tmux control client lost (%s); running tmux per command", exc)
                self._control.close()
                self._control = None
                if exc.sent:
                    raise
        argv: list[str] = []
        for command in commands:
            # Through argv tmux reads a trailing ";" as a separator: escape_for_tmux.
            argv += [";"] * bool(argv) + [escape_for_tmux(arg) for arg in command]
        return list(self.server.cmd(*argv).stdout)

    def _start_control_client(self) -> None:
        try:
            self._control = TmuxControl(
                str(self.session.session_name), self._socket_name, watch=_PS1_END_MARK
            )
        except (OSError, TmuxControlError, TmuxControlClosed) as exc:
            logger.warning("tmux control mode unavailable, running tmux per command: %s", exc)
            self._control = None

    def _send_command(self, command: str, is_input: bool) -> None:
        self._tmux(*self._keys_for(command))

    def _keys_for(self, command: str) -> list[list[str]]:
        if is_special_key(command):
            return [["send-keys", "-t", self._pane_id, command]]
        # -l: never read the text as key names; --: text may start with "-".
        return [
            ["send-keys", "-t", self._pane_id, "-l", "--", command],
            ["send-keys", "-t", self._pane_id, "Enter"],
        ]

    def _capture_command(self) -> list[str]:
        return ["capture-pane", "-t", self._pane_id, "-J", "-p", "-S", "-"]

    def _pane_text(self) -> str:
        return _joined(self._tmux(self._capture_command()))

    def _capture_and_send(self, command: str, is_input: bool, clear_deadline: float) -> str:
        """The pane text just before ``command`` is typed (history cleared first if due).

        When bash is known to have redrawn its prompt after the last C-l, clearing, capturing
        and typing go to tmux as one command line: tmux runs them back to back, so the
        capture shows the pane as it was before the keys. Otherwise as separate steps.
        """
        if self._clear_pending and not self._redrawn():
            pane = self._finish_clear(clear_deadline)
            self._send_command(command, is_input)
            return pane
        clear = [["clear-history", "-t", self._pane_id]] if self._clear_pending else []
        pane = _joined(self._tmux(*clear, self._capture_command(), *self._keys_for(command)))
        self._clear_pending = False
        return pane

    def _marks_seen(self) -> int:
        return self._control.marks_seen if self._control is not None else 0

    def _redrawn(self) -> bool:
        """Whether bash has printed its prompt again since the last C-l (as far as known)."""
        return self._control is not None and self._control.marks_seen > self._clear_marks

    def _await_redraw(self, deadline: float) -> None:
        """Wait (until ``deadline``) for bash's prompt after the last C-l, if a control
        client tells."""
        if self._control is not None:
            timeout = max(0.0, deadline - time.monotonic())
            self._control.wait_for_mark(self._clear_marks, timeout)

    def _wait_for_prompt_mark(self, seen: int, timeout: float) -> int:
        """Wait until bash prints a prompt after ``seen`` marks, or ``timeout`` passes.

        Returns the mark count to wait past next time. Read before the pane is captured,
        a mark counted by then is in the capture.
        """
        if self._control is None:
            time.sleep(timeout)
            return 0
        self._control.wait_for_mark(seen, timeout)
        return self._control.marks_seen

    def _poll_delays(self, command: str) -> Iterator[float]:
        notified = self._control is not None and command != ""
        yield from _FIRST_POLLS if notified else _FIRST_POLLS_QUICK
        yield from itertools.repeat(POLL_INTERVAL)

    @property
    def _pane_id(self) -> str:
        return str(self.pane.pane_id)

    def _clear_screen(self) -> None:
        """Ask bash to redraw just its prompt (C-l); the history goes at the next command.

        Clearing the history has to wait until bash has redrawn (the clear pushes the old
        screen into the history), so ``_finish_clear`` does it just before the next command
        instead of a fixed pause here.
        """
        self._tmux(["send-keys", "-t", self._pane_id, "C-l"])
        self._clear_marks = self._control.marks_before_answer if self._control else 0
        self._clear_pending = True

    def _finish_clear(self, deadline: float) -> str:
        """Clear the history once bash has redrawn its prompt (or ``deadline`` passed);
        returns the pane text."""
        while True:
            pane = _joined(
                self._tmux(
                    ["clear-history", "-t", self._pane_id],
                    ["capture-pane", "-t", self._pane_id, "-J", "-p", "-S", "-"],
                )
            )
            if _prompt_redrawn(pane) or time.monotonic() >= deadline:
                self._clear_pending = False
                return pane
            time.sleep(0.001)

    def _wait_for_prompt(self, seen: int) -> None:
        deadline = time.monotonic() + _READY_WAIT_SECONDS
        while time.monotonic() < deadline:
            if self._pane_text().rstrip().endswith(_PS1_END_MARK):
                return
            seen = self._wait_for_prompt_mark(seen, 0.05)
        logger.warning("Bash did not show its first prompt within %ss", _READY_WAIT_SECONDS)


def _server_going_away(message: str) -> bool:
    """Whether a tmux client's error means it met a tmux server that was exiting."""
    return any(sign in message for sign in _SERVER_GOING_AWAY)


def _joined(lines: list[str]) -> str:
    """Captured lines, right-trimmed, without the empty rows below the last text."""
    # The pane has 1000 rows, mostly empty: drop them in one go, not row by row.
    text = "\n".join(lines).rstrip()
    return "\n".join(line.rstrip() for line in text.split("\n"))


def _prompt_redrawn(pane: str) -> bool:
    """True once C-l has taken effect: the pane starts with the one prompt block left.

    (Before, it holds the previous command between two blocks. Text after the block is
    possible: a background job may print at any time.)
    """
    stripped = pane.lstrip()
    return (
        stripped.startswith(_PS1_BEGIN_MARK)
        and len(CmdOutputMetadata.matches_ps1_metadata(stripped)) == 1
    )


def _join_segments(pane: str, blocks: list[re.Match[str]]) -> str:
    """Text between consecutive PS1 blocks plus the text after the last one."""
    if not blocks:
        return pane
    segments = [pane[a.end() + 1 : b.start()] for a, b in itertools.pairwise(blocks)]
    segments.append(pane[blocks[-1].end() + 1 :])
    return "\n".join(segments)
