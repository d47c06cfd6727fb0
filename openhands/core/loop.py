"""Waiting for a built conversation to finish (used by headless runs and scripts).

The controller works on the event stream's threads; this module only routes error reports
of the runtime, the controller and memory to an ERROR state and waits for an end state
(by listening for the controller's state changes on the stream, never by polling).
Status callbacks are called from any thread, so the state change is sent to the loop the
run waits on instead of being run where the report came from.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Collection, Coroutine, Iterable
from typing import TYPE_CHECKING, Any

from openhands.core.logger import openhands_logger as logger
from openhands.core.schema import AgentState
from openhands.events.event import Event
from openhands.events.observation import AgentStateChangedObservation
from openhands.events.stream import EventStream, EventStreamSubscriber

if TYPE_CHECKING:
    from openhands.controller.agent_controller import AgentController
    from openhands.memory.memory import Memory
    from openhands.runtime.base import Runtime
    from openhands.runtime.runtime_status import RuntimeStatus, StatusCallback


def error_to_state_callback(
    controller: AgentController, loop: asyncio.AbstractEventLoop
) -> StatusCallback:
    """A status callback that logs each report and moves the agent to ERROR on errors.

    The ERROR transition is scheduled on ``loop`` (thread-safe); ``last_error`` is set at
    once so that whoever sees the ERROR state also sees why.
    """

    def on_status(level: str, status: RuntimeStatus, message: str) -> None:
        name = getattr(status, "value", status)
        if level != "error":
            logger.info("%s: %s", name, message)
            return
        logger.error("%s: %s", name, message)
        controller.state.last_error = message or str(name)
        submit(loop, controller.set_agent_state_to(AgentState.ERROR))

    return on_status


def submit(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, None]) -> None:
    """Run ``coro`` on ``loop`` without waiting: a task when called on that loop, else sent
    over thread-safely. Dropped (with a warning) when the loop is already closed."""
    try:
        running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if loop.is_closed():
        coro.close()
        logger.warning("The event loop is closed; a state change was dropped")
        return
    if running is loop:
        task = loop.create_task(coro)
        _pending.add(task)
        task.add_done_callback(_pending.discard)
    else:
        asyncio.run_coroutine_threadsafe(coro, loop)


# Tasks started by ``submit`` on a loop, kept referenced until they are done.
_pending: set[asyncio.Task[None]] = set()


async def wait_for_end_state(
    source: EventStream | AgentController, end_states: Collection[AgentState | str]
) -> AgentState:
    """Wait until the agent is in one of ``end_states``; return that state.

    It listens for ``AgentStateChangedObservation`` events on the stream (the controller's,
    when a controller is given) rather than polling, and looks at the current state right
    after subscribing, so an end state reached just before the call is not missed. With a
    controller its own state decides: a delegate's change on the shared stream does not end
    the wait.
    """
    finals = frozenset(AgentState(state) for state in end_states)
    controller = None if isinstance(source, EventStream) else source
    stream: EventStream = source if isinstance(source, EventStream) else source.event_stream
    loop = asyncio.get_running_loop()
    # Set (on the waiting loop) whenever a state change reports an end state.
    changed = asyncio.Event()

    def settle() -> None:
        changed.set()

    def on_event(event: Event) -> None:
        if not isinstance(event, AgentStateChangedObservation):
            return
        state = _state_of(controller) if controller is not None else _parsed(event.agent_state)
        if state not in finals:
            return
        try:
            # The stream delivers on its own thread: wake the waiting loop up.
            loop.call_soon_threadsafe(settle)
        except RuntimeError:
            pass  # the waiting loop is closed: nobody waits any more

    callback_id = f"end-state-{uuid.uuid4().hex}"
    stream.subscribe(EventStreamSubscriber.MAIN, on_event, callback_id)
    try:
        while True:
            # Read again after each wake-up: an end state that was left already (a user
            # message resuming a run in error) does not end the wait.
            current = _state_of(controller) if controller is not None else _last_state(stream)
            if current in finals:
                return current
            await changed.wait()
            changed.clear()
    finally:
        stream.unsubscribe(EventStreamSubscriber.MAIN, callback_id)


def _parsed(value: object) -> AgentState | None:
    try:
        return AgentState(value)
    except ValueError:
        return None


def _state_of(controller: AgentController) -> AgentState | None:
    value = controller.get_agent_state()
    return AgentState(value) if value is not None else None


def _last_state(stream: EventStream) -> AgentState | None:
    """The state of the stream's last state change (None before any)."""
    for event in stream.search_events(reverse=True):
        if isinstance(event, AgentStateChangedObservation):
            return _parsed(event.agent_state)
    return None


async def run_agent_until_done(
    controller: AgentController,
    runtime: Runtime,
    memory: Memory,
    end_states: Iterable[AgentState],
) -> None:
    """Install the error callback on all three parts, then wait for one of ``end_states``.

    Raises ValueError when a part already has a ``status_callback`` (it would be lost).
    """
    finals = frozenset(end_states)
    parts: tuple[tuple[str, Any], ...] = (
        ("Runtime", runtime),
        ("Controller", controller),
        ("Memory", memory),
    )
    for name, part in parts:
        if getattr(part, "status_callback", None) is not None:
            raise ValueError(
                f"{name} status_callback was set, but run_agent_until_done would override it"
            )
    callback = error_to_state_callback(controller, asyncio.get_running_loop())
    for _, part in parts:
        part.status_callback = callback
    await wait_for_end_state(controller, finals)
