"""Pausing the agent from the keyboard (cli.md §9): Ctrl-P (or Ctrl-C/Ctrl-D) while the
agent works sends ``ChangeAgentStateAction(PAUSED)``.

``create_input`` and ``print_formatted_text`` are taken from ``openhands.cli.tui`` when the
listener starts or prints: they are patch points there (cli.md §15).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.keys import Keys

from openhands.cli.tui_common import DEFAULT_STYLE, print_lock
from openhands.core.schema import AgentState
from openhands.events.action import ChangeAgentStateAction
from openhands.events.event import EventSource

if TYPE_CHECKING:
    from openhands.events.stream import EventStream

_PAUSE_KEYS = frozenset({Keys.ControlP, Keys.ControlC, Keys.ControlD})


class PauseListener:
    """At most one key listener at a time; ``task`` is the running one, if any."""

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None

    def start(
        self, loop: asyncio.AbstractEventLoop, done_event: asyncio.Event, event_stream: EventStream
    ) -> None:
        from openhands.cli import tui as ui

        if self.task is None or self.task.done():
            self.task = loop.create_task(ui.process_agent_pause(done_event, event_stream))

    async def stop(self) -> None:
        task, self.task = self.task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


# One keyboard per process, so one listener.
pause_listener = PauseListener()


def start_pause_listener(
    loop: asyncio.AbstractEventLoop, done_event: asyncio.Event, event_stream: EventStream
) -> None:
    """Listen for Ctrl-P (at most one listener at a time)."""
    pause_listener.start(loop, done_event, event_stream)


async def stop_pause_listener() -> None:
    await pause_listener.stop()


async def process_agent_pause(done: asyncio.Event, event_stream: EventStream) -> None:
    """Read keys in raw mode until Ctrl-P/Ctrl-C/Ctrl-D asks to pause, then set ``done``."""
    from openhands.cli import tui as ui

    try:
        terminal = ui.create_input()
    except (OSError, ValueError):
        # No usable terminal (stdin closed or not a file): nothing can be pressed.
        await done.wait()
        return

    def keys_ready() -> None:
        if done.is_set():
            return
        if not any(press.key in _PAUSE_KEYS for press in terminal.read_keys()):
            return
        with print_lock:
            ui.print_formatted_text("")
            ui.print_formatted_text(HTML("<gold>Pausing the agent...</gold>"), style=DEFAULT_STYLE)
        event_stream.add_event(ChangeAgentStateAction(AgentState.PAUSED.value), EventSource.USER)
        done.set()

    try:
        with terminal.raw_mode(), terminal.attach(keys_ready):
            await done.wait()
    finally:
        terminal.close()
