"""StateTracker: state, history, limits, metrics and saving of one controller."""

from __future__ import annotations

import pytest

from openhands.controller.state.state import State
from openhands.controller.state.state_tracker import StateTracker
from openhands.core.schema import AgentState
from openhands.events.action import (
    AgentDelegateAction,
    ChangeAgentStateAction,
    CmdRunAction,
    MessageAction,
)
from openhands.events.event import EventSource
from openhands.events.observation import AgentDelegateObservation, NullObservation
from openhands.events.stream import EventStream
from openhands.storage.memory import InMemoryFileStore


class _Stats:
    """ConversationStats as far as the tracker uses it."""

    def __init__(self, cost: float) -> None:
        from openhands.llm.metrics import Metrics

        self.metrics = Metrics("m")
        self.metrics.accumulated_cost = cost
        self.saved = 0

    def get_combined_metrics(self):  # type: ignore[no-untyped-def]
        return self.metrics

    def save_metrics(self) -> None:
        self.saved += 1


def _tracker(budget: float | None = None, headless: bool = True) -> StateTracker:
    tracker = StateTracker("sid", InMemoryFileStore(), None, headless_mode=headless)
    tracker.set_initial_state("sid", None, None, 2, budget)
    return tracker


def test_fresh_state_has_the_flags_of_the_limits() -> None:
    tracker = _tracker(budget=1.0)
    state = tracker.state
    assert state.session_id == "sid" and state.start_id == 0
    assert (state.iteration_flag.max_value, state.iteration_flag.current_value) == (2, 0)
    assert state.budget_flag is not None and state.budget_flag.max_value == 1.0
    assert _tracker(budget=0).state.budget_flag is None


def test_delegate_ids_drop_the_suffix() -> None:
    tracker = StateTracker("sid-delegate", None, None)
    tracker.set_initial_state("sid-delegate", None, None, 5, None)
    assert tracker.state.session_id == "sid"


def test_given_state_is_adopted() -> None:
    given = State(start_id=-3, confirmation_mode=True)
    stats = _Stats(0.0)
    tracker = StateTracker("sid", None, None)
    tracker.set_initial_state("sid", given, stats, 9, None, confirmation_mode=False)  # type: ignore[arg-type]
    assert tracker.state is given
    assert given.start_id == 0 and given.conversation_stats is stats
    assert given.confirmation_mode is False


def test_run_control_flags_counts_then_raises_at_the_limit() -> None:
    tracker = _tracker()
    tracker.run_control_flags()
    tracker.run_control_flags()
    with pytest.raises(RuntimeError, match="maximum iteration"):
        tracker.run_control_flags()
    assert tracker.state.iteration_flag.current_value == 2


def test_budget_follows_the_metrics_and_limits_steps() -> None:
    tracker = _tracker(budget=1.0)
    tracker.state.conversation_stats = _Stats(1.5)  # type: ignore[assignment]
    tracker.sync_budget_flag_with_metrics()
    assert tracker.state.budget_flag is not None
    assert tracker.state.budget_flag.current_value == 1.5
    with pytest.raises(RuntimeError, match="maximum budget"):
        tracker.run_control_flags()
    assert tracker.state.iteration_flag.current_value == 1  # counted before the budget check
    tracker.maybe_increase_control_flags_limits(headless_mode=True)
    assert tracker.state.budget_flag.max_value == 2.5


def test_iteration_limit_grows_only_when_interactive() -> None:
    for headless, expected in ((True, 2), (False, 4)):
        tracker = _tracker(headless=headless)
        tracker.run_control_flags()
        tracker.run_control_flags()
        with pytest.raises(RuntimeError):
            tracker.run_control_flags()
        tracker.maybe_increase_control_flags_limits(headless)
        assert tracker.state.iteration_flag.max_value == expected


def test_metrics_snapshot_carries_cost_and_budget() -> None:
    tracker = _tracker(budget=3.0)
    tracker.state.conversation_stats = _Stats(0.5)  # type: ignore[assignment]
    snapshot = tracker.get_metrics_snapshot()
    assert snapshot.accumulated_cost == 0.5 and snapshot.max_budget_per_task == 3.0
    assert snapshot is not tracker.state.metrics


def test_history_filters_bookkeeping_events() -> None:
    tracker = _tracker()
    tracker.add_history(MessageAction("hi"))
    tracker.add_history(ChangeAgentStateAction("running"))
    tracker.add_history(NullObservation(""))
    assert [type(e) for e in tracker.state.history] == [MessageAction]


def test_history_load_close_and_trajectory() -> None:
    stream = EventStream("sid", InMemoryFileStore())
    stream.add_event(MessageAction("go"), EventSource.USER)
    stream.add_event(AgentDelegateAction(agent="X", inputs={}), EventSource.AGENT)
    stream.add_event(CmdRunAction("ls"), EventSource.AGENT)
    stream.add_event(AgentDelegateObservation(content="done", outputs={}), EventSource.AGENT)
    tracker = _tracker()
    tracker.load_history(stream)
    assert not any(isinstance(e, CmdRunAction) for e in tracker.state.history)
    tracker.close(stream)
    assert any(isinstance(e, CmdRunAction) for e in tracker.state.history)
    trajectory = tracker.get_trajectory()
    assert [t.get("action") or t.get("observation") for t in trajectory] == [
        "message",
        "delegate",
        "run",
        "delegate",
    ]
    stream.close()


def test_save_state_writes_the_state_and_the_stats() -> None:
    store = InMemoryFileStore()
    tracker = StateTracker("sid", store, None)
    tracker.set_initial_state("sid", None, None, 5, None)
    stats = _Stats(0.0)
    tracker.state.conversation_stats = stats  # type: ignore[assignment]
    tracker.state.agent_state = AgentState.PAUSED
    tracker.save_state()
    assert stats.saved == 1
    assert State.restore_from_session("sid", store).resume_state == AgentState.PAUSED
    # No sid or no store: nothing to save to.
    StateTracker(None, store, None).save_state()
    StateTracker("sid", None, None).save_state()
