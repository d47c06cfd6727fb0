"""The controller's public Python API (python-api.md §2, checklist items 5 and 6)."""

from __future__ import annotations

import asyncio
import base64
import inspect
import logging
import pickle
import threading

import pytest

from openhands.controller import agent_controller as ac
from openhands.controller.agent import Agent
from openhands.controller.agent_controller import AgentController
from openhands.controller.state import state as state_module
from openhands.controller.state.control_flags import BudgetControlFlag, IterationControlFlag
from openhands.controller.state.state import State, TrafficControlState
from openhands.core.schema import AgentState
from openhands.events.action import (
    AgentDelegateAction,
    AgentFinishAction,
    CmdRunAction,
    MessageAction,
)
from openhands.events.event import EventSource
from openhands.events.observation import (
    AgentStateChangedObservation,
    CmdOutputObservation,
    NullObservation,
)
from openhands.llm.metrics import Metrics
from openhands.storage.locations import get_conversation_agent_state_filename
from tests.unit.controller.harness import ScriptedAgent, World, wait_until

# --- coroutine shapes (checklist 5) -------------------------------------------------------------


def test_package_reexports_the_same_class() -> None:
    import openhands.controller

    assert openhands.controller.AgentController is AgentController
    assert "AgentController" in openhands.controller.__all__


def test_close_set_state_and_start_delegate_are_coroutines() -> None:
    for name in ("close", "set_agent_state_to", "start_delegate"):
        assert inspect.iscoroutinefunction(getattr(AgentController, name)), name
    for name in ("step", "should_step", "set_initial_state", "get_trajectory", "save_state", "log"):
        assert not inspect.iscoroutinefunction(getattr(AgentController, name)), name
    assert list(inspect.signature(AgentController.close).parameters) == ["self", "set_stop_state"]
    assert inspect.signature(AgentController.close).parameters["set_stop_state"].default is True


async def test_await_close_stops_and_unsubscribes(world: World) -> None:
    controller = world.start()
    await controller.close()
    assert controller.get_agent_state() == AgentState.STOPPED
    steps = world.agent.steps
    world.user_says("anyone there?")
    world.settle()
    assert world.agent.steps == steps
    await controller.close()  # a second close is a no-op


async def test_close_without_stop_state_keeps_the_state(world: World) -> None:
    controller = world.start([AgentFinishAction()])
    world.user_says("go")
    world.wait_for_state(AgentState.FINISHED)
    await controller.close(set_stop_state=False)
    assert controller.get_agent_state() == AgentState.FINISHED
    assert "stopped" not in world.state_changes()


async def test_set_agent_state_to_publishes_the_change_and_saves(world: World) -> None:
    controller = world.start()
    await controller.set_agent_state_to(AgentState.PAUSED)
    world.settle()
    last = world.events()[-1]
    assert isinstance(last, AgentStateChangedObservation)
    assert (last.agent_state, last.source) == ("paused", EventSource.ENVIRONMENT)
    assert State.restore_from_session("conv", world.file_store).resume_state == AgentState.PAUSED


class _Helper(ScriptedAgent):
    system_prompt = "You help."


async def test_start_delegate_hands_over_with_shared_flags(world: World) -> None:
    Agent.register("PublicApiHelper", _Helper)
    try:
        controller = world.start()
        await controller.start_delegate(
            AgentDelegateAction(agent="PublicApiHelper", inputs={"x": 1})
        )
    finally:
        Agent._registry.pop("PublicApiHelper", None)
    delegate = controller.delegate
    assert delegate is not None and delegate.parent is controller
    assert delegate.state.inputs == {"x": 1}
    assert delegate.state.iteration_flag is controller.state.iteration_flag
    assert delegate.state.delegate_level == 1
    await controller.close()
    assert controller.delegate is None
    assert delegate.get_agent_state() == AgentState.STOPPED


def test_the_callback_thread_applies_transitions_before_deciding(world: World) -> None:
    """A user message sets RUNNING and steps within the same event: nothing is deferred."""
    world.start([CmdRunAction("ls"), AgentFinishAction()])
    world.user_says("go")
    world.wait_for_state(AgentState.FINISHED)
    assert world.state_changes() == ["running", "finished"]
    assert [a.command for a in world.runtime.executed] == ["ls"]  # type: ignore[attr-defined]


async def test_error_from_another_thread_is_scheduled_on_the_loop(world: World) -> None:
    """A status callback on a foreign thread hands the coroutine to the loop (core.loop)."""
    from openhands.core.loop import submit

    controller = world.start()
    loop = asyncio.get_running_loop()
    done = asyncio.Event()

    async def to_error() -> None:
        await controller.set_agent_state_to(AgentState.ERROR)
        done.set()

    thread = threading.Thread(target=submit, args=(loop, to_error()))
    thread.start()
    await done.wait()
    thread.join()
    assert controller.get_agent_state() == AgentState.ERROR


# --- the other methods, attributes and constants ----------------------------------------------


def test_attributes_of_the_spec(world: World) -> None:
    controller = world.start(iteration_delta=7, confirmation_mode=True)
    assert controller.id == "conv"
    assert controller.max_iterations == 7
    assert controller.confirmation_mode is True
    assert controller.event_stream is world.stream
    assert controller.parent is None and controller.delegate is None
    assert controller.agent_to_llm_config == {} and controller.agent_configs == {}
    assert controller.status_callback is None
    assert controller.state is controller.state_tracker.state


def test_constants() -> None:
    assert (
        ac.ERROR_ACTION_NOT_EXECUTED_STOPPED_ID == "AGENT_ERROR$ERROR_ACTION_NOT_EXECUTED_STOPPED"
    )
    assert ac.ERROR_ACTION_NOT_EXECUTED_ERROR_ID == "AGENT_ERROR$ERROR_ACTION_NOT_EXECUTED_ERROR"
    assert ac.ERROR_ACTION_NOT_EXECUTED_STOPPED == (
        "Stop button pressed. The action has not been executed."
    )
    assert "runtime" in ac.ERROR_ACTION_NOT_EXECUTED_ERROR
    assert isinstance(ac.TRAFFIC_CONTROL_REMINDER, str) and ac.TRAFFIC_CONTROL_REMINDER


def test_stop_notice_uses_the_constants(world: World) -> None:
    """A published, unanswered tool action gets the STOPPED notice when the user stops."""
    world.stream.unsubscribe("runtime", "fake-runtime")  # nobody runs the command
    controller = world.start([CmdRunAction("sleep 100")])
    world.user_says("go")
    wait_until(lambda: any(isinstance(e, CmdRunAction) for e in world.events()))
    asyncio.run(controller.close())
    notice = [e for e in world.events() if getattr(e, "error_id", "")]
    assert [(n.content, n.error_id) for n in notice] == [  # type: ignore[attr-defined]
        (ac.ERROR_ACTION_NOT_EXECUTED_STOPPED, ac.ERROR_ACTION_NOT_EXECUTED_STOPPED_ID)
    ]


def test_should_step_follows_the_policy(world: World) -> None:
    controller = world.start()
    user = MessageAction("hi")
    user._source = EventSource.USER
    assert controller.should_step(user) is True
    assert controller.should_step(CmdRunAction("ls")) is False
    assert controller.should_step(CmdOutputObservation("", command="ls")) is True
    caused = NullObservation("")
    caused._cause = 3
    assert controller.should_step(caused) is True
    assert controller.should_step(NullObservation("")) is False


async def test_step_schedules_one_step_as_a_task(world: World) -> None:
    controller = world.start([MessageAction("thinking", wait_for_response=True)])
    controller.state.agent_state = AgentState.RUNNING  # running, nothing pending
    steps = world.agent.steps
    controller.step()
    assert world.agent.steps == steps  # not run inline: only scheduled
    tasks = set(controller._step_tasks)
    assert len(tasks) == 1
    await asyncio.gather(*tasks)  # type: ignore[arg-type]
    assert world.agent.steps == steps + 1
    world.wait_for_state(AgentState.AWAITING_USER_INPUT)


def test_step_without_a_loop_runs_in_place(world: World) -> None:
    controller = world.start([MessageAction("thinking", wait_for_response=True)])
    controller.state.agent_state = AgentState.RUNNING
    controller.step()
    assert world.agent.steps == 1


def test_set_initial_state_adopts_a_state_and_loads_its_history(world: World) -> None:
    controller = world.start()
    world.user_says("hello")
    world.settle()
    given = State(session_id="conv", start_id=-5)
    controller.set_initial_state(given, None, 3, 1.5, confirmation_mode=True)
    assert controller.state is given
    assert given.start_id == 0 and given.confirmation_mode is True
    assert any(isinstance(e, MessageAction) for e in given.history)

    controller.set_initial_state(None, None, 3, 1.5)
    fresh = controller.state
    assert fresh.iteration_flag.max_value == 3
    assert fresh.budget_flag is not None and fresh.budget_flag.max_value == 1.5
    controller.set_initial_state(None, None, 4, None)
    assert controller.state.budget_flag is None


def test_get_trajectory_after_close(world: World) -> None:
    controller = world.start([CmdRunAction("ls"), AgentFinishAction()])
    world.user_says("go")
    world.wait_for_state(AgentState.FINISHED)
    world.settle()
    asyncio.run(controller.close())
    trajectory = controller.get_trajectory()
    kinds = [item.get("action") or item.get("observation") for item in trajectory]
    assert kinds[0] == "system" and "run" in kinds and kinds[-1] == "finish"
    assert all("id" in item for item in trajectory)


def test_log_prefixes_the_controller_id(
    world: World, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    controller = world.start()
    monkeypatch.setattr(ac.logger, "propagate", True)
    with caplog.at_level(logging.DEBUG, logger=ac.logger.name):
        controller.log("warning", "something odd", extra={"marker": 7})
    record = next(r for r in caplog.records if "something odd" in r.getMessage())
    assert record.levelno == logging.WARNING
    assert record.getMessage() == "[Agent Controller conv] something odd"
    assert record.marker == 7  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        controller.log("loud", "x")


def test_save_state_writes_the_session(world: World) -> None:
    controller = world.start()
    controller.state.extra_data["k"] = "v"
    controller.save_state()
    assert State.restore_from_session("conv", world.file_store).extra_data == {"k": "v"}


# --- State: deprecated fields and old pickles (checklist 6) -------------------------------------


def test_traffic_control_state_values() -> None:
    assert TrafficControlState.PAUSED.value == "paused"
    assert [m.value for m in TrafficControlState] == ["normal", "throttling", "paused"]
    assert issubclass(TrafficControlState, str)


def test_deprecated_fields_default_to_none() -> None:
    state = State()
    for name in state_module.DEPRECATED_FIELDS:
        assert getattr(state, name) is None, name


def _old_state_pickle(monkeypatch: pytest.MonkeyPatch, attrs: dict[str, object]) -> bytes:
    """Pickle ``attrs`` as a State of an older release: a stand-in class registered at the
    real module path, carrying plain counters instead of control flags."""

    class OldState:
        pass

    OldState.__module__ = "openhands.controller.state.state"
    OldState.__qualname__ = OldState.__name__ = "State"
    old = OldState()
    old.__dict__.update(attrs)
    with monkeypatch.context() as patch:
        patch.setattr(state_module, "State", OldState)
        return pickle.dumps(old)


def _old_attrs() -> dict[str, object]:
    metrics = Metrics()
    metrics.accumulated_cost = 0.25
    vars(metrics)["_max_budget_per_task"] = 2.0
    return {
        "session_id": "old",
        "iteration": 7,
        "local_iteration": 7,
        "max_iterations": 30,
        "traffic_control_state": TrafficControlState.PAUSED,
        "agent_state": AgentState.RUNNING,
        "metrics": metrics,
        "history": [],
        "inputs": {},
        "outputs": {},
        "delegate_level": 0,
        "start_id": 0,
        "end_id": -1,
        "extra_data": {},
        "last_error": "",
    }


def test_old_pickle_restores_from_the_session(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    blob = base64.b64encode(_old_state_pickle(monkeypatch, _old_attrs())).decode()
    world.file_store.write(get_conversation_agent_state_filename("old"), blob)

    restored = State.restore_from_session("old", world.file_store)
    assert restored.session_id == "old"
    assert restored.iteration_flag == IterationControlFlag(
        limit_increase_amount=30, current_value=7, max_value=30
    )
    assert restored.budget_flag == BudgetControlFlag(
        limit_increase_amount=2.0, current_value=0.25, max_value=2.0
    )
    assert restored.traffic_control_state == TrafficControlState.PAUSED
    assert restored.resume_state == AgentState.RUNNING
    assert restored.agent_state == AgentState.LOADING

    # Saving again writes today's shape: no deprecated fields.
    restored.save_to_session("old", world.file_store, None)
    text = world.file_store.read(get_conversation_agent_state_filename("old"))
    for name in state_module.DEPRECATED_FIELDS:
        assert f'"{name}"' not in text, name
    again = State.restore_from_session("old", world.file_store)
    assert again.traffic_control_state is None
    assert again.iteration_flag.current_value == 7


def test_plain_unpickling_of_an_old_state_upgrades_it(monkeypatch: pytest.MonkeyPatch) -> None:
    state = pickle.loads(_old_state_pickle(monkeypatch, _old_attrs()))
    assert isinstance(state, State)
    assert state.iteration_flag.current_value == 7 and state.iteration_flag.max_value == 30
    assert state.budget_flag is not None and state.budget_flag.max_value == 2.0
    assert state.metrics.max_budget_per_task == 2.0
    assert state.traffic_control_state == TrafficControlState.PAUSED
    assert state.history == []


def test_pickling_drops_history_view_cache_and_deprecated_fields() -> None:
    state = State(session_id="s", history=[MessageAction("hi")])
    state.traffic_control_state = TrafficControlState.NORMAL
    state.iteration = 3
    assert len(state.view) == 1  # builds the cache
    attrs = state.__getstate__()
    assert "_view" not in attrs and "_view_history_len" not in attrs
    assert attrs["history"] == [] and attrs["conversation_stats"] is None
    assert not set(state_module.DEPRECATED_FIELDS) & set(attrs)

    copy = pickle.loads(pickle.dumps(state))
    assert copy.session_id == "s" and copy.history == []
    assert copy.traffic_control_state is None and copy.iteration is None
    assert len(copy.view) == 0  # rebuilt from the (empty) history, not the old cache
