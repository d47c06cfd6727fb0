"""A running session's reaction to its events (cli.md §6–§9): show each one, and on agent
state changes open the prompt, ask for confirmation, or start the pause listener.

Events come from the stream's threads; they are queued and handled one at a time on the
session's loop, so prompts and menus never overlap. The display and input functions are
taken from ``openhands.cli.main`` when used: they are patch points there (cli.md §15).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prompt_toolkit.formatted_text import HTML

from openhands.cli.tui_common import UsageMetrics
from openhands.controller import policies
from openhands.core.schema import AgentState
from openhands.core.schema.exit_reason import ExitReason
from openhands.events.action import ChangeAgentStateAction
from openhands.events.action.action import ActionSecurityRisk
from openhands.events.event import Event, EventSource
from openhands.events.observation import AgentStateChangedObservation

if TYPE_CHECKING:
    from openhands.core.assembly import ConversationParts
    from openhands.core.config import OpenHandsConfig
    from openhands.events.action import Action
    from openhands.storage.settings.file_settings_store import FileSettingsStore

# Prompting waits in these states; the session ends in the last two.
PROMPT_STATES = frozenset({AgentState.AWAITING_USER_INPUT, AgentState.FINISHED, AgentState.PAUSED})
END_STATES = (AgentState.STOPPED, AgentState.ERROR)
# The agent is working (thinking, or running a confirmed action): the spinner turns.
WORKING_STATES = frozenset({AgentState.RUNNING, AgentState.USER_CONFIRMED})
# How long a confirmation question waits for the held action's event to be shown first.
ACTION_WAIT_SECONDS = 10.0


@dataclass
class SessionState:
    """What one session remembers between events (never saved)."""

    usage_metrics: UsageMetrics = field(default_factory=UsageMetrics)
    exit_reason: ExitReason = ExitReason.INTENTIONAL
    new_session_requested: bool = False
    reload_microagents: bool = False
    always_confirm: bool = False
    auto_highrisk_confirm: bool = False
    prompt_open: bool = False


@dataclass
class PromptRequest:
    """Queued instead of an event: open the prompt at start, handling ``first_input``
    (what the user typed while the conversation was being assembled) first."""

    first_input: str | None = None


class Spinner:
    """``[⠋] <text>`` below the last output while something takes long (an LLM call, a
    command, the start-up). Stopped (its line erased) before anything is printed."""

    def __init__(self, text: str | Callable[[], str] = "Working...") -> None:
        self._text = text
        self._done: threading.Event | None = None
        self._thread: threading.Thread | None = None

    def start(self, *, only_on_a_terminal: bool = True) -> None:
        from openhands.cli import main as hooks

        if self._thread is not None or (only_on_a_terminal and not sys.stdout.isatty()):
            return
        self._done = threading.Event()
        self._thread = threading.Thread(
            target=hooks.display_initialization_animation,
            args=(self._text, self._done),
            daemon=True,
        )
        self._thread.start()

    async def stop(self) -> None:
        thread, done = self._thread, self._done
        if thread is None or done is None:
            return
        self._thread = self._done = None
        done.set()
        await asyncio.to_thread(thread.join)


class EventHandler:
    """Shows each event and reacts to agent state changes, one event at a time."""

    def __init__(
        self,
        config: OpenHandsConfig,
        settings_store: FileSettingsStore,
        current_dir: str,
        sid: str,
        parts: ConversationParts,
        state: SessionState,
        queue: asyncio.Queue[Event | PromptRequest],
    ) -> None:
        self.config = config
        self.settings_store = settings_store
        self.current_dir = current_dir
        self.sid = sid
        self.parts = parts
        self.state = state
        self.queue = queue
        self.event_stream = parts.runtime.event_stream
        self.is_paused = asyncio.Event()
        # Events taken from the queue early (while waiting for a held action's event),
        # handled before anything newer.
        self.backlog: deque[Event] = deque()
        self.spinner = Spinner()

    async def consume(self) -> None:
        from openhands.cli import main as hooks

        while True:
            item = self.backlog.popleft() if self.backlog else await self.queue.get()
            try:
                if isinstance(item, PromptRequest):
                    await self.spinner.stop()
                    await self.prompt_for_next_task("", item.first_input)
                else:
                    await self.handle(item)
            except asyncio.CancelledError:
                raise
            except Exception:
                # One bad event must not end the session's display.
                hooks.logger.exception("The terminal could not handle an event")

    async def handle(self, event: Event) -> None:
        from openhands.cli import main as hooks

        await self.spinner.stop()
        hooks.display_event(event, self.config)
        hooks.update_usage_metrics(event, self.state.usage_metrics)
        if not isinstance(event, AgentStateChangedObservation):
            if self.parts.controller.get_agent_state() in WORKING_STATES:
                self.spinner.start()
            return
        agent_state = event.agent_state
        # USER_CONFIRMED too: the confirmed action is running, and can take long (the
        # reference listened only in RUNNING, so a confirmed command could not be paused).
        if agent_state in WORKING_STATES:
            hooks.display_agent_running_message()
            hooks.start_pause_listener(
                asyncio.get_running_loop(), self.is_paused, self.event_stream
            )
            self.spinner.start()
            return
        if agent_state != AgentState.PAUSED:
            await hooks.stop_pause_listener()
        if self.parts.controller.get_agent_state() != agent_state:
            # A stale change (the agent has moved on since): asking now would answer the
            # wrong question or open a prompt while the agent works.
            return
        await self._react_to_state(agent_state)

    async def _react_to_state(self, agent_state: str) -> None:
        from openhands.cli import main as hooks

        if agent_state == AgentState.AWAITING_USER_CONFIRMATION:
            await self.confirm_pending_action()
        elif agent_state == AgentState.PAUSED:
            await hooks.stop_pause_listener()
            self.is_paused.clear()
            await self.prompt_for_next_task(agent_state)
        elif agent_state in PROMPT_STATES:
            if self.state.reload_microagents:
                self.reload_microagents()
            await self.prompt_for_next_task(agent_state)

    async def show_until(self, action: Action) -> None:
        """Show queued events up to ``action``: the controller announces the state before
        it stores the action, and the user must see the command before the question."""
        from openhands.cli import main as hooks

        loop = asyncio.get_running_loop()
        deadline = loop.time() + ACTION_WAIT_SECONDS
        while (remaining := deadline - loop.time()) > 0:
            try:
                event = await asyncio.wait_for(self.queue.get(), remaining)
            except TimeoutError:
                return
            if isinstance(event, PromptRequest):
                continue
            if isinstance(event, AgentStateChangedObservation):
                self.backlog.append(event)
                continue
            hooks.display_event(event, self.config)
            hooks.update_usage_metrics(event, self.state.usage_metrics)
            if event is action or (event.id == action.id != Event.INVALID_ID):
                return

    def reload_microagents(self) -> None:
        runtime = self.parts.runtime
        self.parts.memory.load_user_workspace_microagents(
            runtime.get_microagents_from_selected_repo(None)
        )
        self.state.reload_microagents = False

    async def prompt_for_next_task(self, agent_state: str, first_input: str | None = None) -> None:
        """Read input until something closes the prompt (a message, /exit, /new...)."""
        from openhands.cli import main as hooks

        if self.state.prompt_open or self.is_paused.is_set():
            return
        self.state.prompt_open = True
        try:
            while True:
                if first_input is not None:
                    text, first_input = first_input, None
                else:
                    text = await hooks.read_prompt_input(
                        self.config, agent_state, multiline=self.config.cli_multiline_input
                    )
                if not text.strip():
                    continue
                close_repl, reload, new_session, reason = await hooks.handle_commands(
                    text,
                    self.event_stream,
                    self.state.usage_metrics,
                    self.sid,
                    self.config,
                    self.current_dir,
                    self.settings_store,
                    agent_state,
                )
                self.state.exit_reason = reason
                self.state.reload_microagents = self.state.reload_microagents or reload
                self.state.new_session_requested = new_session
                if close_repl:
                    return
        finally:
            self.state.prompt_open = False

    async def confirm_pending_action(self) -> None:
        """Ask about the held action, unless a session-wide answer already covers it."""
        from openhands.cli import main as hooks

        if self.is_paused.is_set():
            return
        pending = self.parts.controller.pending_action
        # Only actions whose wire form can say "awaiting" are stored (and shown) before
        # the answer; the controller keeps the others back.
        if pending is not None and policies.carries_confirmation_state(pending):
            await self.show_until(pending)
        risk = getattr(pending, "security_risk", ActionSecurityRisk.UNKNOWN)
        if self.state.always_confirm or (
            self.state.auto_highrisk_confirm and risk != ActionSecurityRisk.HIGH
        ):
            answer = "yes"
        else:
            answer = await hooks.read_confirmation_input(self.config, security_risk=risk)
        if answer == "always":
            self.state.always_confirm = True
        elif answer == "auto_highrisk":
            self.state.auto_highrisk_confirm = True
        if answer == "no":
            decision = AgentState.USER_REJECTED
            hooks.print_formatted_text(
                HTML("<skyblue>Okay, please tell me what I should do next/instead.</skyblue>")
            )
        else:
            decision = AgentState.USER_CONFIRMED
        self.event_stream.add_event(ChangeAgentStateAction(agent_state=decision), EventSource.USER)
