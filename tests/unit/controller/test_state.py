"""State: persistence (versioned JSON, legacy pickles) and the history helpers."""

from __future__ import annotations

import base64
import json
import os
import pickle

import pytest

import openhands.controller.state.state as state_module
from openhands.controller.state.control_flags import BudgetControlFlag, IterationControlFlag
from openhands.controller.state.state import State
from openhands.core.schema import AgentState
from openhands.events.action import AgentFinishAction, CondensationAction, MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import CmdOutputObservation
from openhands.llm.conversation_stats import ConversationStats
from openhands.llm.metrics import Metrics
from openhands.storage.memory import InMemoryFileStore

PATH = "sessions/sid/agent_state.pkl"
USER_PATH = "users/u1/conversations/sid/agent_state.pkl"


def _full_state() -> State:
    metrics = Metrics("gpt-4o")
    metrics.add_cost(0.5)
    metrics.add_token_usage(10, 5, 1, 0, 8000, "r1")
    return State(
        session_id="sid",
        user_id="u1",
        iteration_flag=IterationControlFlag(
            limit_increase_amount=30,
            current_value=7,
            max_value=60,
            headless_mode=True,
            _hit_limit=True,
        ),
        budget_flag=BudgetControlFlag(limit_increase_amount=2.0, current_value=0.5, max_value=4.0),
        confirmation_mode=True,
        history=[MessageAction("not saved")],
        inputs={"task": "t"},
        outputs={"answer": [1, 2]},
        agent_state=AgentState.AWAITING_USER_INPUT,
        delegate_level=1,
        start_id=3,
        end_id=40,
        parent_metrics_snapshot=Metrics("gpt-4o"),
        parent_iteration=2,
        extra_data={"condenser_meta": [{"k": "v"}]},
        last_error="RuntimeError: boom",
        metrics=metrics,
    )


def test_round_trip_keeps_everything_but_the_history() -> None:
    store = InMemoryFileStore()
    original = _full_state()
    original.save_to_session("sid", store, None)
    restored = State.restore_from_session("sid", store)

    assert restored.history == []
    assert restored.agent_state == AgentState.LOADING
    assert restored.resume_state == AgentState.AWAITING_USER_INPUT
    for name in (
        "session_id",
        "user_id",
        "iteration_flag",
        "budget_flag",
        "confirmation_mode",
        "inputs",
        "outputs",
        "delegate_level",
        "start_id",
        "end_id",
        "parent_iteration",
        "extra_data",
        "last_error",
    ):
        assert getattr(restored, name) == getattr(original, name), name
    assert restored.metrics == original.metrics
    assert restored.metrics.model_name == "gpt-4o"
    assert restored.parent_metrics_snapshot == original.parent_metrics_snapshot


def test_the_file_is_versioned_json() -> None:
    store = InMemoryFileStore()
    _full_state().save_to_session("sid", store, None)
    payload = json.loads(store.read(PATH))
    assert payload["format"] == "openhands-agent-state"
    assert payload["version"] == 1
    assert payload["state"]["agent_state"] == "awaiting_user_input"
    assert payload["state"]["iteration_flag"]["current_value"] == 7
    assert "history" not in payload["state"]


@pytest.mark.parametrize(
    ("saved", "resume"),
    [
        (AgentState.RUNNING, AgentState.RUNNING),
        (AgentState.PAUSED, AgentState.PAUSED),
        (AgentState.FINISHED, AgentState.FINISHED),
        (AgentState.ERROR, None),
        (AgentState.STOPPED, None),
    ],
)
def test_resume_state(saved: AgentState, resume: AgentState | None) -> None:
    store = InMemoryFileStore()
    State(agent_state=saved).save_to_session("sid", store, None)
    assert State.restore_from_session("sid", store).resume_state == resume


def test_user_conversations_move_and_fall_back() -> None:
    store = InMemoryFileStore()
    State(last_error="old").save_to_session("sid", store, None)
    # Reading for a user finds the user-less copy while there is no user copy.
    assert State.restore_from_session("sid", store, "u1").last_error == "old"

    State(last_error="new").save_to_session("sid", store, "u1")
    assert json.loads(store.read(USER_PATH))["state"]["last_error"] == "new"
    with pytest.raises(FileNotFoundError):
        store.read(PATH)  # the old copy is gone
    assert State.restore_from_session("sid", store, "u1").last_error == "new"


def test_missing_and_unreadable_states() -> None:
    store = InMemoryFileStore()
    with pytest.raises(FileNotFoundError):
        State.restore_from_session("sid", store)
    store.write(PATH, json.dumps({"format": "openhands-agent-state", "version": 99, "state": {}}))
    with pytest.raises(ValueError, match="version"):
        State.restore_from_session("sid", store)
    store.write(PATH, "not base64 at all!!")
    with pytest.raises(ValueError):
        State.restore_from_session("sid", store)


def test_non_json_values_in_outputs_are_kept_as_text() -> None:
    store = InMemoryFileStore()
    State(outputs={"when": ValueError("x"), "tags": {"a"}}).save_to_session("sid", store, None)
    outputs = State.restore_from_session("sid", store).outputs
    assert outputs["tags"] == ["a"]
    assert outputs["when"] == "x"


def test_saving_also_saves_the_conversation_stats() -> None:
    store = InMemoryFileStore()
    stats = ConversationStats(store, "sid")
    stats.service_to_metrics["agent"] = Metrics("m")
    State(conversation_stats=stats).save_to_session("sid", store, None)
    assert store.read("sessions/sid/conversation_stats.pkl")


# --- legacy base64 pickles ---------------------------------------------------------------------------


class _ReferenceState:
    """Pickles the way the reference's State does: class path + attribute dict."""

    def __init__(self, attrs: dict) -> None:
        self.__dict__.update(attrs)


def _legacy_pickle(attrs: dict, monkeypatch: pytest.MonkeyPatch) -> str:
    _ReferenceState.__module__ = "openhands.controller.state.state"
    _ReferenceState.__qualname__ = "State"
    monkeypatch.setattr(state_module, "State", _ReferenceState)
    try:
        raw = pickle.dumps(_ReferenceState(attrs), protocol=4)
    finally:
        monkeypatch.undo()
    return base64.b64encode(raw).decode()


def test_legacy_pickles_are_still_read(monkeypatch: pytest.MonkeyPatch) -> None:
    metrics = Metrics("old-model")
    metrics.add_cost(1.25)
    # The reference keeps the budget under a private name.
    metrics.__dict__["_max_budget_per_task"] = metrics.__dict__.pop("max_budget_per_task")
    metrics.__dict__["_max_budget_per_task"] = 9.0
    encoded = _legacy_pickle(
        {
            "session_id": "sid",
            "iteration": 5,
            "max_iterations": 30,
            "agent_state": AgentState.RUNNING,
            "outputs": {"a": 1},
            "last_error": "x",
            "metrics": metrics,
            "history": [],
        },
        monkeypatch,
    )
    store = InMemoryFileStore()
    store.write(PATH, encoded)
    restored = State.restore_from_session("sid", store)
    assert isinstance(restored, State)
    assert restored.session_id == "sid"
    assert restored.iteration_flag == IterationControlFlag(
        limit_increase_amount=30, current_value=5, max_value=30
    )
    assert restored.resume_state == AgentState.RUNNING
    assert restored.outputs == {"a": 1}
    assert restored.metrics.accumulated_cost == 1.25
    assert restored.metrics.max_budget_per_task == 9.0


def test_legacy_pickles_cannot_run_code() -> None:
    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))

    store = InMemoryFileStore()
    store.write(PATH, base64.b64encode(pickle.dumps(Evil())).decode())
    with pytest.raises(ValueError, match="refusing"):
        State.restore_from_session("sid", store)


# --- history helpers -----------------------------------------------------------------------------


def _sourced(event: Event, source: EventSource, event_id: int) -> Event:
    event.source = source
    event.id = event_id
    return event


def _conversation() -> list[Event]:
    return [
        _sourced(MessageAction("first task"), EventSource.USER, 0),
        _sourced(MessageAction("working on it"), EventSource.AGENT, 1),
        _sourced(AgentFinishAction(), EventSource.AGENT, 2),
        _sourced(MessageAction("second task", image_urls=["img"]), EventSource.USER, 3),
        _sourced(CmdOutputObservation(content="", command="ls"), EventSource.AGENT, 4),
        _sourced(MessageAction("more detail"), EventSource.USER, 5),
        _sourced(MessageAction("done"), EventSource.AGENT, 6),
    ]


def test_last_messages_and_current_intent() -> None:
    state = State(history=_conversation())
    assert state.get_last_user_message().content == "more detail"  # type: ignore[union-attr]
    assert state.get_last_agent_message().content == "done"  # type: ignore[union-attr]
    # The task since the agent last finished starts with "second task".
    assert state.get_current_user_intent() == ("second task", ["img"])
    assert State().get_current_user_intent() == (None, None)
    assert State().get_last_user_message() is None


def test_view_is_cached_by_history_length_and_hides_forgotten_events() -> None:
    state = State(history=_conversation())
    view = state.view
    assert state.view is view
    state.history.append(
        _sourced(CondensationAction(forgotten_event_ids=[5, 6]), EventSource.AGENT, 7)
    )
    new_view = state.view
    assert new_view is not view
    assert [e.id for e in new_view] == [0, 1, 2, 3, 4]
    assert state.get_last_user_message().content == "second task"  # type: ignore[union-attr]


def test_local_step_and_metrics() -> None:
    metrics = Metrics()
    metrics.add_cost(1.0)
    snapshot = metrics.copy()
    metrics.add_cost(0.5)
    state = State(
        iteration_flag=IterationControlFlag(
            limit_increase_amount=10, current_value=7, max_value=10
        ),
        parent_iteration=4,
        metrics=metrics,
        parent_metrics_snapshot=snapshot,
    )
    assert state.get_local_step() == 3
    assert state.get_local_metrics().accumulated_cost == 0.5
    assert State(metrics=metrics).get_local_metrics() is metrics


def test_llm_metrics_snapshot_combines_all_services() -> None:
    stats = ConversationStats(None, "sid")
    agent_metrics, condenser_metrics = Metrics("a"), Metrics("c")
    agent_metrics.add_cost(0.25)
    condenser_metrics.add_cost(0.5)
    agent_metrics.add_token_usage(100, 20, 0, 0, 1000, "r")
    stats.service_to_metrics = {"agent": agent_metrics, "condenser": condenser_metrics}
    state = State(
        conversation_stats=stats,
        budget_flag=BudgetControlFlag(limit_increase_amount=5.0, current_value=0.0, max_value=5.0),
    )
    snapshot = state.to_llm_metrics()
    assert snapshot.accumulated_cost == 0.75
    assert snapshot.max_budget_per_task == 5.0
    assert snapshot.accumulated_token_usage.prompt_tokens == 100
    assert snapshot.costs == []  # a summary, not a copy of every record
