"""LLM errors in a headless run (agent.md §7.5, §8.4, §8.6; §11 items 20 and 26).

The scripted server answers with real HTTP errors (429, context length) that LiteLLM turns
into its exceptions; the LLM wrapper retries, the controller reacts.
"""

from __future__ import annotations

from pathlib import Path

from openhands.core.schema import AgentState
from openhands.events.action import CondensationAction, CondensationRequestAction
from tests.integration.harness import HeadlessRun, requires_tmux, state_changes
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

pytestmark = requires_tmux


def test_a_rate_limit_is_retried_and_the_run_goes_on(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm, num_retries=3)
    scripted_llm.push(
        s.rate_limit_error(),
        s.tool_call("execute_bash", {"command": "echo ok > ok.txt", "security_risk": "LOW"}),
        s.rate_limit_error(),
        s.rate_limit_error(),
        s.tool_call("finish", {"message": "Done."}),
    )

    state = run.run("Write ok.txt.")

    assert state.agent_state == AgentState.FINISHED
    assert (run.workspace / "ok.txt").read_text() == "ok\n"
    assert len(scripted_llm.completion_requests) == 5
    # The retries happened inside the LLM call: the agent never looked rate limited.
    assert "rate_limited" not in state_changes(run.events())
    assert state.last_error == ""


def test_a_rate_limit_that_outlasts_the_retries_ends_the_run(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm, num_retries=2)
    scripted_llm.push(s.rate_limit_error(), s.rate_limit_error())

    state = run.run("Say hello.")

    assert state.agent_state == AgentState.ERROR
    assert state.last_error == "CHAT_INTERFACE$AGENT_RATE_LIMITED_STOPPED_MESSAGE"
    assert len(scripted_llm.completion_requests) == 2


def _history_then_overflow(run: HeadlessRun, llm: ScriptedLLMServer) -> None:
    for n in range(1, 4):
        llm.push(
            s.tool_call("execute_bash", {"command": f"echo {n} >> n.txt", "security_risk": "LOW"})
        )
    llm.push(s.context_window_error(), s.tool_call("finish", {"message": "Done."}))


def test_a_full_context_is_condensed_and_the_run_goes_on(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    assert run.agent_config.condenser.type == "conversation_window"
    assert run.agent_config.enable_history_truncation
    _history_then_overflow(run, scripted_llm)

    state = run.run("Count to three in n.txt.")

    assert state.agent_state == AgentState.FINISHED
    events = run.events()
    request = next(e for e in events if isinstance(e, CondensationRequestAction))
    condensation = next(e for e in events if isinstance(e, CondensationAction))
    assert request.id < condensation.id
    assert condensation.forgotten  # something was dropped from the view
    overflowing, after = (r.messages for r in scripted_llm.completion_requests[-2:])
    assert len(after) < len(overflowing)
    # What is essential survives: the system prompt and the task.
    assert after[0]["role"] == "system"
    assert "Count to three in n.txt." in str(after[1]["content"])


def test_a_full_context_without_truncation_is_an_error(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    run.agent_config.enable_history_truncation = False
    _history_then_overflow(run, scripted_llm)

    state = run.run("Count to three in n.txt.")

    assert state.agent_state == AgentState.ERROR
    assert state.last_error.startswith("LLMContextWindowExceedError: ")
    assert not any(isinstance(e, CondensationRequestAction) for e in run.events())
