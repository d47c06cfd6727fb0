"""Confirmation mode on a real workspace (agent.md §8.8, §11 item 27).

The agent's commands run through the LocalRuntime, so "nothing ran" and "ran once" are
read from the files the commands write. The user is a stream subscriber that answers
`awaiting_user_confirmation` the way the UI does, after a pause that would let a command
run if anything were going to run it.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from openhands.core.schema import AgentState
from openhands.events.action import ActionConfirmationStatus, CmdRunAction
from openhands.events.event import Event
from openhands.events.observation import Observation, UserRejectObservation
from openhands.events.stream import EventStream
from tests.integration.harness import (
    HeadlessRun,
    requires_tmux,
    state_changes,
    user_sets,
    when_state,
)
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

pytestmark = requires_tmux

WAIT = 1.0  # how long the user looks at the pending command before answering


class SlowUser:
    """Answers each confirmation request with ``decision`` after ``WAIT`` seconds."""

    def __init__(self, decision: AgentState, watched: Path) -> None:
        self.decision = decision
        self.watched = watched
        self.seen_while_waiting: list[bool] = []
        self.threads: list[threading.Thread] = []

    def __call__(self, stream: EventStream, event: Event) -> None:
        when_state(AgentState.AWAITING_USER_CONFIRMATION.value, self._answer_later)(stream, event)

    def _answer_later(self, stream: EventStream) -> None:
        def answer() -> None:
            time.sleep(WAIT)
            self.seen_while_waiting.append(self.watched.exists())
            user_sets(stream, self.decision.value)

        thread = threading.Thread(target=answer, daemon=True)
        self.threads.append(thread)
        thread.start()


def _confirmation_run(tmp_path: Path, llm: ScriptedLLMServer, analyzer: str | None) -> HeadlessRun:
    run = HeadlessRun(tmp_path, llm)
    run.config.security.confirmation_mode = True
    run.config.security.security_analyzer = analyzer
    llm.push(
        s.tool_call(
            "execute_bash",
            {"command": f"echo low >> {run.path('low.txt')}", "security_risk": "LOW"},
        ),
        s.tool_call(
            "execute_bash",
            {"command": f"echo high >> {run.path('high.txt')}", "security_risk": "HIGH"},
            content="This one writes a file.",
        ),
        s.tool_call("finish", {"message": "Done."}),
    )
    return run


def _commands(events: list[Event], name: str) -> list[CmdRunAction]:
    return [e for e in events if isinstance(e, CmdRunAction) and name in e.command]


def _answers(events: list[Event], action: Event) -> list[Observation]:
    return [e for e in events if isinstance(e, Observation) and e.cause == action.id]


def test_high_risk_command_waits_and_a_rejection_runs_nothing(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = _confirmation_run(tmp_path, scripted_llm, analyzer="llm")
    user = SlowUser(AgentState.USER_REJECTED, run.workspace / "high.txt")

    state = run.run("Write the two files.", user=user)

    assert state.agent_state == AgentState.FINISHED
    assert user.seen_while_waiting == [False]  # asked once, and it had not run meanwhile
    assert (run.workspace / "low.txt").read_text() == "low\n"  # LOW ran without asking
    assert not (run.workspace / "high.txt").exists()  # rejected: never ran
    events = run.events()
    waiting, rejected = _commands(events, "high.txt")
    assert waiting.confirmation_state == ActionConfirmationStatus.AWAITING_CONFIRMATION
    assert _answers(events, waiting) == []  # the runtime saw it and did nothing
    assert rejected.confirmation_state == ActionConfirmationStatus.REJECTED
    assert rejected.thought == ""  # shown once already, with the first copy
    (answer,) = _answers(events, rejected)
    assert isinstance(answer, UserRejectObservation)
    assert answer.content == "Action has been rejected by the user! Waiting for further user input."
    changes = state_changes(events)
    start = changes.index("awaiting_user_confirmation")
    assert changes[start : start + 3] == [
        "awaiting_user_confirmation",
        "user_rejected",
        "awaiting_user_input",
    ]
    # The model hears about the rejection as the result of its call.
    results = [m for m in scripted_llm.last_request.messages if m["role"] == "tool"]
    assert "[Last action has been rejected by the user]" in str(results[-1]["content"])


def test_high_risk_command_runs_exactly_once_when_confirmed(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = _confirmation_run(tmp_path, scripted_llm, analyzer="llm")
    user = SlowUser(AgentState.USER_CONFIRMED, run.workspace / "high.txt")

    state = run.run("Write the two files.", user=user)

    assert state.agent_state == AgentState.FINISHED
    assert user.seen_while_waiting == [False]
    assert (run.workspace / "high.txt").read_text() == "high\n"  # once, not twice
    events = run.events()
    waiting, confirmed = _commands(events, "high.txt")
    assert confirmed.id != waiting.id  # re-published under a new id
    assert confirmed.confirmation_state == ActionConfirmationStatus.CONFIRMED
    assert _answers(events, waiting) == []
    assert len(_answers(events, confirmed)) == 1
    changes = state_changes(events)
    start = changes.index("awaiting_user_confirmation")
    assert changes[start : start + 3] == ["awaiting_user_confirmation", "user_confirmed", "running"]


def test_without_an_analyzer_even_low_risk_commands_wait(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = _confirmation_run(tmp_path, scripted_llm, analyzer=None)
    user = SlowUser(AgentState.USER_CONFIRMED, run.workspace / "low.txt")

    state = run.run("Write the two files.", user=user)

    assert state.agent_state == AgentState.FINISHED
    assert user.seen_while_waiting == [False, True]  # both asked; low.txt existed by the second
    assert (run.workspace / "low.txt").read_text() == "low\n"
    assert (run.workspace / "high.txt").read_text() == "high\n"
    assert state_changes(run.events()).count("awaiting_user_confirmation") == 2
