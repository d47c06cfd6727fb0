"""Waiting for a built conversation to finish (used by headless runs and scripts).

The controller works on the event stream's threads; this module only routes error reports
of the runtime, the controller and memory to an ERROR state and waits for an end state.
Status callbacks are called from any thread, so the state change is sent to the loop the
run waits on instead of being run where the report came from.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any

from openhands.core.logger import openhands_logger as logger
from openhands.core.schema import AgentState

if TYPE_CHECKING:
    from openhands.controller.agent_controller import AgentController
    from openhands.memory.memory import Memory
    from openhands.runtime.base import Runtime
    from openhands.runtime.runtime_status import RuntimeStatus

StatusCallback = Callable[[str, "RuntimeStatus", str], None]

# How often ``run_agent_until_done`` looks at the agent's state.
POLL_INTERVAL_SECONDS = 1.0


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
    while controller.state.agent_state not in finals:
        await asyncio.sleep(POLL_INTERVAL_SECONDS)
