"""Delegation: a second scripted agent takes over, shares the limits, and reports back."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from openhands.controller.agent import Agent
from openhands.controller.history import load_history
from openhands.controller.state.state import State
from openhands.core.schema import AgentState
from openhands.events.action import (
    AgentDelegateAction,
    AgentFinishAction,
    CmdRunAction,
    MessageAction,
    SystemMessageAction,
)
from openhands.events.event import EventSource
from openhands.events.observation import AgentDelegateObservation
from openhands.events.tool import ToolCallMetadata
from tests.unit.controller.harness import ScriptedAgent, World, wait_until


class HelperAgent(ScriptedAgent):
    system_prompt = "You are the helper."


@pytest.fixture(autouse=True)
def _registered() -> Iterator[None]:
    Agent.register("HelperAgent", HelperAgent)
    yield
    Agent._registry.pop("HelperAgent", None)


def _delegate_action() -> AgentDelegateAction:
    action = AgentDelegateAction(agent="HelperAgent", inputs={"task": "count the files"})
    action.tool_call_metadata = ToolCallMetadata(
        function_name="delegate",
        tool_call_id="call_delegate",
        model_response={"id": "r1"},
        total_calls_in_response=1,
    )
    return action


def test_delegate_runs_the_task_and_reports_back(world: World) -> None:
    HelperAgent.default_script = [
        CmdRunAction("ls | wc -l"),
        AgentFinishAction(outputs={"count": 3}),
    ]
    parent = world.start([_delegate_action(), AgentFinishAction(outputs={"parent": "done"})])
    world.user_says("delegate it")
    world.wait_for_state(AgentState.FINISHED)
    world.settle()
    events = world.events()

    task = next(e for e in events if isinstance(e, MessageAction) and e.content.startswith("TASK"))
    assert task.content == "TASK: count the files"
    assert task.source == EventSource.USER
    systems = [e for e in events if isinstance(e, SystemMessageAction)]
    assert [s.content for s in systems] == ["You are a scripted test agent.", "You are the helper."]

    result = next(e for e in events if isinstance(e, AgentDelegateObservation))
    assert result.content == (
        "Delegated agent finished with result:\n\nHelperAgent finishes task with count: 3"
    )
    assert result.outputs == {"count": 3}
    assert result.source == EventSource.AGENT
    assert result.tool_call_metadata is not None
    assert result.tool_call_metadata.tool_call_id == "call_delegate"

    # One shared iteration counter: parent 2 steps, helper 2 steps.
    assert parent.state.iteration_flag.current_value == 4
    assert parent.state.outputs == {"parent": "done"}
    assert parent.delegate is None
    # The helper's command ran, but the parent's history does not show it.
    assert [a.command for a in world.runtime.executed] == ["ls | wc -l"]  # type: ignore[attr-defined]
    assert not any(isinstance(e, CmdRunAction) for e in parent.state.history)
    assert any(isinstance(e, AgentDelegateObservation) for e in parent.state.history)


def test_restored_history_hides_the_delegates_events(world: World) -> None:
    HelperAgent.default_script = [CmdRunAction("pwd"), AgentFinishAction(outputs={"ok": True})]
    world.start([_delegate_action(), AgentFinishAction()])
    world.user_says("go")
    world.wait_for_state(AgentState.FINISHED)
    world.settle()

    hidden = load_history(world.stream, 0, -1)
    full = load_history(world.stream, 0, -1, include_delegate_events=True)
    assert not any(isinstance(e, CmdRunAction) for e in hidden)
    assert any(isinstance(e, CmdRunAction) for e in full)

    assert world.controller is not None
    asyncio.run(world.controller.close(set_stop_state=False))
    # After close the history is the full record, for the trajectory.
    assert any(isinstance(e, CmdRunAction) for e in world.controller.state.history)
    restored = State.restore_from_session("conv", world.file_store)
    world.start(initial_state=restored)
    assert not any(isinstance(e, CmdRunAction) for e in world.controller.state.history)


def test_failing_delegate_reports_an_error(world: World) -> None:
    HelperAgent.default_script = [ValueError("helper broke")]
    parent = world.start([_delegate_action(), AgentFinishAction()])
    world.user_says("go")
    world.wait_for_state(AgentState.FINISHED)
    result = next(e for e in world.events() if isinstance(e, AgentDelegateObservation))
    assert result.content == (
        "Delegated agent finished with result:\n\nHelperAgent encountered an error during execution."
    )
    assert parent.get_agent_state() == AgentState.FINISHED


def test_parent_does_not_step_while_the_delegate_works(world: World) -> None:
    HelperAgent.default_script = [MessageAction("question for you", wait_for_response=True)]
    parent = world.start([_delegate_action(), AgentFinishAction()])
    world.user_says("go")
    wait_until(lambda: parent.delegate is not None)
    delegate = parent.delegate
    assert delegate is not None
    wait_until(lambda: delegate.get_agent_state() == AgentState.AWAITING_USER_INPUT)
    world.settle()
    assert parent.agent.steps == 1
    assert parent.get_agent_state() == AgentState.RUNNING
    assert delegate.state.delegate_level == 1
    assert delegate.state.iteration_flag is parent.state.iteration_flag
    assert delegate.state.inputs == {"task": "count the files"}

    # The user's answer goes to the delegate, which then finishes and hands back.
    world.user_says("here is the answer")
    world.wait_for_state(AgentState.FINISHED)
    assert parent.agent.steps == 2


def test_unknown_delegate_agent_is_an_error(world: World) -> None:
    action = AgentDelegateAction(agent="NoSuchAgent", inputs={"task": "x"})
    parent = world.start([action])
    world.user_says("go")
    world.wait_for_state(AgentState.ERROR)
    assert parent.state.last_error == (
        "AgentNotRegisteredError: No agent class registered under 'NoSuchAgent'"
    )


def test_a_finished_delegate_is_closed_through_its_public_close(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openhands.controller.agent_controller import AgentController

    closed: list[tuple[str, bool]] = []
    original_close = AgentController.close

    async def recording_close(self: AgentController, set_stop_state: bool = True) -> None:
        closed.append((self.agent.name, set_stop_state))
        await original_close(self, set_stop_state)

    # What a controller subclass overriding close() would see.
    monkeypatch.setattr(AgentController, "close", recording_close)
    HelperAgent.default_script = [AgentFinishAction(outputs={"count": 1})]
    parent = world.start([_delegate_action(), AgentFinishAction()])
    world.user_says("go")
    world.wait_for_state(AgentState.FINISHED)
    assert parent.delegate is None
    assert ("HelperAgent", True) in closed
