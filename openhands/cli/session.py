"""One conversation of the terminal app (cli.md §5–§11): its start screen, the loop that
runs the agent until it stops, and the clean-up.

The prompt opens at once while the conversation is assembled in the background
(``session_assembly``); events are handled by ``session_events.EventHandler``. Every name
scripts and tests replace (cli.md §15: the factories, ``display_*``, ``handle_commands``,
``cleanup_session``...) is taken from ``openhands.cli.main`` when the session runs.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.shortcuts import clear

from openhands.cli.session_assembly import AssemblyProgress, assemble
from openhands.cli.session_events import (
    END_STATES,
    EventHandler,
    PromptRequest,
    SessionState,
    Spinner,
)
from openhands.cli.session_messages import error_hint, welcome_and_first_message
from openhands.core.schema import AgentState
from openhands.core.schema.exit_reason import ExitReason
from openhands.events.action import MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.stream import EventStreamSubscriber

if TYPE_CHECKING:
    from openhands.controller.agent import Agent
    from openhands.controller.agent_controller import AgentController
    from openhands.core.assembly import ConversationParts
    from openhands.core.config import OpenHandsConfig
    from openhands.runtime.base import Runtime
    from openhands.storage.settings.file_settings_store import FileSettingsStore


async def run_session(
    loop: asyncio.AbstractEventLoop,
    config: OpenHandsConfig,
    settings_store: FileSettingsStore,
    current_dir: str,
    task_content: str | None = None,
    conversation_instructions: str | None = None,
    session_name: str | None = None,
    skip_banner: bool = False,
    conversation_id: str | None = None,
) -> bool:
    """Run one conversation until the agent stops; True when the user asked for ``/new``.

    The prompt opens at once: the agent, the LLM client and the runtime are assembled in
    the background meanwhile (seconds, mostly importing LiteLLM), and what the user typed
    is handled once they are ready, with a spinner if they are not yet.
    """
    from openhands.cli import main as hooks

    sid = conversation_id or hooks.generate_sid(config, session_name)
    state = SessionState()
    restored = await asyncio.to_thread(hooks.restore_state, sid, hooks.create_file_store(config))
    hooks.display_runtime_initialization_message(config.runtime)
    progress = AssemblyProgress()
    assembly = asyncio.create_task(
        assemble(config, sid, conversation_instructions, progress.report)
    )
    try:
        clear()
        if not skip_banner:
            hooks.display_banner(session_id=sid)
        welcome, first_message = welcome_and_first_message(config, restored, task_content)
        hooks.display_welcome_message(welcome)
        first_input = None
        if first_message is not None:
            hooks.display_initial_user_prompt(first_message)
        else:
            first_input = await _read_first_input(config)
        parts = await _wait_for_assembly(assembly, progress)
    finally:
        if not assembly.done():
            assembly.cancel()
            await asyncio.gather(assembly, return_exceptions=True)

    handler = EventHandler(config, settings_store, current_dir, sid, parts, state, asyncio.Queue())
    opening: Event | PromptRequest = (
        PromptRequest(first_input)
        if first_message is None
        else MessageAction(content=first_message)
    )
    last_error = await _run_until_done(loop, handler, opening)
    if last_error is not None:
        hooks.print_formatted_text(
            HTML("<ansired>{}</ansired>").format(error_hint(config, last_error))
        )
    if state.exit_reason == ExitReason.INTENTIONAL:
        hooks.print_formatted_text("✅ Session terminated successfully.\n")
    else:
        hooks.print_formatted_text(f"⚠️ Session was interrupted: {state.exit_reason.value}\n")
    return state.new_session_requested


async def _read_first_input(config: OpenHandsConfig) -> str:
    from openhands.cli import main as hooks

    while True:
        text = await hooks.read_prompt_input(config, "", multiline=config.cli_multiline_input)
        if text.strip():
            return text


async def _wait_for_assembly(
    assembly: asyncio.Task[ConversationParts], progress: AssemblyProgress
) -> ConversationParts:
    """The assembled parts. While they are not ready, the "Initializing..." spinner runs
    and names the step the assembly is on (read again at every frame)."""
    if assembly.done():
        return assembly.result()
    spinner = Spinner(progress.describe)
    spinner.start(only_on_a_terminal=False)
    try:
        return await assembly
    finally:
        await spinner.stop()


async def _run_until_done(
    loop: asyncio.AbstractEventLoop, handler: EventHandler, opening: Event | PromptRequest
) -> str | None:
    """Run the agent until it stops, handling its events meanwhile, then close the parts.

    ``opening`` starts the conversation: the task (a user message), or the prompt. Returns
    the agent's last error when it ended in the error state, else None.
    """
    from openhands.cli import main as hooks

    parts, queue = handler.parts, handler.queue
    event_stream = parts.runtime.event_stream

    def on_event(event: Event) -> None:
        # The stream's delivery thread: hand the event over, handle it on this loop.
        loop.call_soon_threadsafe(queue.put_nowait, event)

    event_stream.subscribe(EventStreamSubscriber.MAIN, on_event, handler.sid)
    if isinstance(opening, PromptRequest):
        queue.put_nowait(opening)
    else:
        event_stream.add_event(opening, EventSource.USER)
    consumer = asyncio.create_task(handler.consume())
    try:
        await hooks.run_agent_until_done(
            parts.controller, parts.runtime, parts.memory, list(END_STATES)
        )
    finally:
        # Read before the clean-up, which moves the agent to STOPPED.
        ended_in_error = parts.controller.get_agent_state() == AgentState.ERROR
        last_error = parts.controller.state.last_error or ""
        consumer.cancel()
        await asyncio.gather(consumer, return_exceptions=True)
        await handler.spinner.stop()
        await hooks.stop_pause_listener()
        event_stream.unsubscribe(EventStreamSubscriber.MAIN, handler.sid)
        await hooks.cleanup_session(loop, parts.agent, parts.runtime, parts.controller)
        if parts.owns_event_stream:
            # cleanup_session (the reference's signature) closes the agent, runtime and
            # controller; the stream the assembly opened for them is closed here.
            parts.event_stream.close()
    return last_error if ended_in_error else None


async def cleanup_session(
    loop: asyncio.AbstractEventLoop,
    agent: Agent,
    runtime: Runtime,
    controller: AgentController,
) -> None:
    """Save the state, give leftover tasks up to 2 s (then cancel them), then close the
    agent, runtime and controller. A failure is logged, never raised: the session is over."""
    from openhands.cli import main as hooks

    try:
        controller.save_state()
    except Exception as error:
        hooks.logger.warning("Could not save the conversation state: %s", error)
    current = asyncio.current_task(loop)
    leftovers = [t for t in asyncio.all_tasks(loop) if t is not current and not t.done()]
    if leftovers:
        _, still_running = await asyncio.wait(leftovers, timeout=2)
        for task in still_running:
            task.cancel()
    try:
        agent.reset()
        await asyncio.to_thread(runtime.close)
        await controller.close()
    except Exception as error:
        hooks.logger.error(f"Error during session cleanup: {error}")
        return
    analyzer = controller.security_analyzer
    if analyzer is not None:
        try:
            await analyzer.close()
        except Exception as error:
            hooks.logger.warning("Closing the security analyzer failed: %s", error)
