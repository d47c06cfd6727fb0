"""The five stuck-in-a-loop patterns end a real headless run (agent.md §8.11, §11 item 28).

The scripted LLM plays an agent that keeps doing the same thing. The LocalRuntime runs what
it asks for, so each test can also count what really ran: the loop is caught exactly at
its threshold (4 pairs, 3 errors, 3 messages, 6 alternating steps, 10 condensations) and
not a step earlier.
"""

from __future__ import annotations

import itertools
import threading
from pathlib import Path
from typing import Any

from openhands.core.schema import AgentState
from openhands.events.action import AgentThinkAction, CmdRunAction, MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import (
    AgentCondensationObservation,
    AgentThinkObservation,
    ErrorObservation,
)
from openhands.events.stream import EventStream
from tests.integration.harness import HeadlessRun, agent_actions, requires_tmux
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

pytestmark = requires_tmux

STUCK = "AgentStuckInLoopError: Agent got stuck in a loop"


def _bash(command: str) -> s.Reply:
    return s.tool_call("execute_bash", {"command": command, "security_risk": "LOW"})


def _assert_stuck(state: Any) -> None:
    assert state.agent_state == AgentState.ERROR
    assert state.last_error == STUCK


def test_the_same_command_and_output_four_times(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    scripted_llm.fallback = _bash(f"echo again >> {run.path('runs.txt')}")

    state = run.run("Append a line.")

    _assert_stuck(state)
    assert (run.workspace / "runs.txt").read_text().splitlines() == ["again"] * 4
    assert len(scripted_llm.completion_requests) == 4


def test_the_same_failing_action_three_times(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    # Two commands in one call: the shell refuses it with an error every time.
    scripted_llm.fallback = _bash(f"echo first >> {run.path('x.txt')}\necho second")

    state = run.run("Run both.")

    _assert_stuck(state)
    events = run.events()
    commands = [a for a in agent_actions(events) if isinstance(a, CmdRunAction)]
    errors = [e for e in events if isinstance(e, ErrorObservation)]
    assert len(commands) == 3 and len(errors) == 3
    assert [e.cause for e in errors] == [a.id for a in commands]
    assert not (run.workspace / "x.txt").exists()


def test_the_same_message_three_times_with_nothing_in_between(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    scripted_llm.fallback = s.text("I will look into it.")

    state = run.run("Look into it.", fake_user_response=lambda _state: "Fine.")

    _assert_stuck(state)
    events = run.events()
    said = [a for a in agent_actions(events) if isinstance(a, MessageAction)]
    assert [m.content for m in said] == ["I will look into it."] * 3
    replies = [e for e in events if isinstance(e, MessageAction) and e.source == EventSource.USER]
    assert [m.content for m in replies[1:]] == ["Fine."] * 3  # user messages do not count


def test_two_steps_alternating_six_times(tmp_path: Path, scripted_llm: ScriptedLLMServer) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    log = run.path("ab.txt")
    turns = itertools.cycle([_bash(f"echo a >> {log}"), _bash(f"echo b >> {log}")])
    scripted_llm.fallback = lambda _request: next(turns)

    state = run.run("Alternate.")

    _assert_stuck(state)
    assert (run.workspace / "ab.txt").read_text().split() == ["a", "b"] * 3
    commands = [a for a in agent_actions(run.events()) if isinstance(a, CmdRunAction)]
    assert len(commands) == 6


def test_ten_condensation_summaries_back_to_back(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    """Summaries are normally made up inside views; here they really land in the history.

    After the agent's first thought, the "user" publishes ten summaries in one burst while
    the LLM holds its next answer, so they sit next to each other in the stream.
    """
    run = HeadlessRun(tmp_path, scripted_llm)
    burst_done = threading.Event()
    thoughts = itertools.count(1)

    def think(request: dict[str, Any]) -> s.Reply:
        n = next(thoughts)
        if n > 1:
            assert burst_done.wait(10)
        return s.tool_call("think", {"thought": f"Thought {n}."})

    scripted_llm.fallback = think

    def burst(stream: EventStream, event: Event) -> None:
        if isinstance(event, AgentThinkObservation) and not burst_done.is_set():
            for n in range(10):
                stream.add_event(
                    AgentCondensationObservation(f"Summary {n}."), EventSource.ENVIRONMENT
                )
            burst_done.set()

    state = run.run("Think.", user=burst)

    _assert_stuck(state)
    # One call before the burst, one for the thought's answer, one per summary but the tenth.
    assert len(scripted_llm.completion_requests) == 11
    assert len([a for a in agent_actions(run.events()) if isinstance(a, AgentThinkAction)]) == 11
