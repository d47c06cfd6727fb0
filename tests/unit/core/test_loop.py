"""``openhands.core.loop.run_agent_until_done`` (python-api.md §5.3)."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from openhands.core.loop import run_agent_until_done
from openhands.core.schema import AgentState
from openhands.runtime.runtime_status import RuntimeStatus
from tests.unit.controller.harness import World

END_STATES = [AgentState.FINISHED, AgentState.ERROR, AgentState.STOPPED]


class _Part:
    """Stands in for the runtime and memory: only ``status_callback`` matters here."""

    def __init__(self, callback: Any = None) -> None:
        self.status_callback = callback


@pytest.fixture
def world() -> Iterator[World]:
    w = World("loop")
    try:
        yield w
    finally:
        w.close()


def test_is_a_coroutine_function() -> None:
    assert inspect.iscoroutinefunction(run_agent_until_done)
    assert list(inspect.signature(run_agent_until_done).parameters) == [
        "controller",
        "runtime",
        "memory",
        "end_states",
    ]


@pytest.mark.parametrize("which", ["runtime", "controller", "memory"])
async def test_refuses_to_override_a_status_callback(world: World, which: str) -> None:
    controller = world.start()
    runtime, memory = _Part(), _Part()
    target = {"runtime": runtime, "controller": controller, "memory": memory}[which]
    target.status_callback = lambda *args: None
    with pytest.raises(ValueError, match=f"{which.capitalize()} status_callback was set"):
        await run_agent_until_done(controller, runtime, memory, END_STATES)  # type: ignore[arg-type]


async def test_returns_at_an_end_state_with_the_callbacks_installed(world: World) -> None:
    controller = world.start()
    runtime, memory = _Part(), _Part()
    waiting = asyncio.create_task(
        run_agent_until_done(controller, runtime, memory, END_STATES)  # type: ignore[arg-type]
    )
    while runtime.status_callback is None:
        await asyncio.sleep(0)
    assert controller.status_callback is runtime.status_callback is memory.status_callback
    assert not waiting.done()
    await controller.set_agent_state_to(AgentState.FINISHED)
    await waiting


async def test_an_error_report_from_any_thread_ends_in_error(world: World) -> None:
    controller = world.start()
    runtime, memory = _Part(), _Part()
    waiting = asyncio.create_task(
        run_agent_until_done(controller, runtime, memory, END_STATES)  # type: ignore[arg-type]
    )
    while runtime.status_callback is None:
        await asyncio.sleep(0)
    report = threading.Thread(
        target=runtime.status_callback,
        args=("error", RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, "sandbox is gone"),
    )
    report.start()
    report.join()
    await waiting
    assert controller.get_agent_state() == AgentState.ERROR
    assert controller.state.last_error == "sandbox is gone"


async def test_info_reports_do_not_change_the_state(world: World) -> None:
    controller = world.start()
    runtime, memory = _Part(), _Part()
    waiting = asyncio.create_task(
        run_agent_until_done(controller, runtime, memory, END_STATES)  # type: ignore[arg-type]
    )
    while memory.status_callback is None:
        await asyncio.sleep(0)
    memory.status_callback("info", RuntimeStatus.READY, "ready")
    assert controller.get_agent_state() == AgentState.LOADING
    await controller.set_agent_state_to(AgentState.STOPPED)
    await waiting


def test_waits_without_polling() -> None:
    # The end state arrives as an event; nothing in the module sleeps in a loop.
    source = inspect.getsource(run_agent_until_done)
    assert "sleep" not in source
    assert "wait_for_end_state" in source
