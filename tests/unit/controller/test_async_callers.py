"""Callers written for an asynchronous controller: its hooks can be awaited, subclasses that
override ``set_initial_state`` by keyword work, and the first user message is cached."""

from __future__ import annotations

import asyncio
from typing import Any

from openhands.controller.agent_controller import AgentController
from openhands.controller.state.state import State
from openhands.core.schema import AgentState
from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.event import EventSource
from openhands.events.observation import ErrorObservation
from tests.unit.controller.harness import World


def test_step_event_and_error_hooks_can_be_awaited(world: World) -> None:
    controller = world.start([CmdRunAction("ls")])

    async def drive() -> None:
        controller.state.agent_state = AgentState.RUNNING
        await controller._step()
        assert isinstance(controller._pending_action, CmdRunAction)
        await controller._react_to_exception(RuntimeError("boom"))
        assert controller.get_agent_state() == AgentState.ERROR
        message = MessageAction("again")
        message.source = EventSource.USER
        await controller._on_event(message)
        assert controller.get_agent_state() == AgentState.RUNNING

    asyncio.run(drive())


def test_hooks_still_run_when_called_without_await(world: World) -> None:
    controller = world.start()
    controller._react_to_exception(RuntimeError("boom"))
    assert controller.get_agent_state() == AgentState.ERROR
    assert controller.state.last_error == "RuntimeError: boom"


class _RecordingController(AgentController):
    seen: list[State | None]

    def set_initial_state(self, *args: Any, state: State | None = None, **kwargs: Any) -> None:
        self.seen = [state]
        super().set_initial_state(*args, state=state, **kwargs)


def test_set_initial_state_is_called_by_keyword(world: World) -> None:
    initial = State(session_id=world.sid)
    controller = _RecordingController(
        agent=world.make_agent(),
        event_stream=world.stream,
        conversation_stats=None,
        iteration_delta=5,
        sid=world.sid,
        initial_state=initial,
    )
    assert controller.seen == [initial]
    assert controller.state is initial
    asyncio.run(controller.close())


def test_first_user_message_is_found_once_and_cached(world: World) -> None:
    controller = world.start()
    world.user_says("same words")
    world.user_says("same words")
    world.settle()
    first = controller._first_user_message()
    assert first is not None and first.content == "same words"
    users = [
        e for e in world.events() if isinstance(e, MessageAction) and e.source == EventSource.USER
    ]
    assert first.id == users[0].id != users[1].id
    assert controller._first_user_message() is first


def test_reset_answers_an_unpublished_pending_tool_action(world: World) -> None:
    controller = world.start()
    world.settle()
    pending = CmdRunAction("sleep 100")
    controller._pending_action = pending
    controller.state.agent_state = AgentState.STOPPED
    before = len(world.events())
    controller._reset()
    world.settle()
    notices = [e for e in world.events()[before:] if isinstance(e, ErrorObservation)]
    assert [n.content for n in notices] == [
        "Stop button pressed. The action has not been executed."
    ]
    assert controller._pending_action is None
