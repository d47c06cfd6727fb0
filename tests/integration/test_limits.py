"""Iteration and budget limits end a headless run in ERROR with the spec's message
(agent.md §8.4 step 4, §8.7; §11 item 23)."""

from __future__ import annotations

from pathlib import Path

from openhands.core.schema import AgentState
from openhands.events.action import AgentThinkAction
from tests.integration.harness import HeadlessRun, agent_actions, requires_tmux, state_changes
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

pytestmark = requires_tmux


def _think(cost: float | None = None) -> s.Reply:
    call = s.ScriptedToolCall("think", {"thought": "Let me think about it."})
    return s.Reply(content="", tool_calls=(call,), cost=cost)


def test_max_iterations(tmp_path: Path, scripted_llm: ScriptedLLMServer) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    run.config.max_iterations = 3
    scripted_llm.fallback = _think()

    state = run.run("Think forever.")

    assert state.agent_state == AgentState.ERROR
    assert state.last_error == (
        "RuntimeError: Agent reached maximum iteration. Current iteration: 3, max iteration: 3"
    )
    assert state.iteration_flag.current_value == 3
    assert len(scripted_llm.completion_requests) == 3
    events = run.events()
    assert len([a for a in agent_actions(events) if isinstance(a, AgentThinkAction)]) == 3
    final = [e for e in events if getattr(e, "agent_state", None) == "error"]
    assert [e.reason for e in final] == [state.last_error]  # type: ignore[attr-defined]


def test_max_budget(tmp_path: Path, scripted_llm: ScriptedLLMServer) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    run.config.max_budget_per_task = 1.0
    scripted_llm.fallback = _think(cost=0.6)

    state = run.run("Think at a price.")

    assert state.agent_state == AgentState.ERROR
    # No space after the first period: the reference's text, kept as it is.
    assert state.last_error == (
        "RuntimeError: Agent reached maximum budget for conversation."
        "Current budget: 1.20, max budget: 1.00"
    )
    assert len(scripted_llm.completion_requests) == 2
    # The step that hit the budget had already been counted.
    assert state.iteration_flag.current_value == 3
    thoughts = [a for a in agent_actions(run.events()) if isinstance(a, AgentThinkAction)]
    spent = [a.llm_metrics.accumulated_cost for a in thoughts]  # type: ignore[union-attr]
    assert spent == [0.6, 1.2]
    assert all(a.llm_metrics.max_budget_per_task == 1.0 for a in thoughts)  # type: ignore[union-attr]
    assert state_changes(run.events())[-1] == "error"
