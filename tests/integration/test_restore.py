"""Restarting a conversation resumes it (agent.md §8.10, §9.5 steps 6–7).

The first headless run ends in ERROR halfway (the LLM rejects the key). A second run with
the same conversation id, as after a restart, restores the saved State and the event
history from the file store, tells the agent to get back on track, and finishes the work
on the same workspace.
"""

from __future__ import annotations

import json
from pathlib import Path

from openhands.core.main import RESUME_AFTER_ERROR_MESSAGE
from openhands.core.schema import AgentState
from openhands.events.action import MessageAction, SystemMessageAction
from openhands.events.event import EventSource
from tests.integration.harness import HeadlessRun, requires_tmux, state_changes
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

pytestmark = requires_tmux

TASK = "Write one and two to n.txt."


def _bash(command: str) -> s.Reply:
    return s.tool_call("execute_bash", {"command": command, "security_risk": "LOW"})


def test_a_restarted_conversation_picks_up_where_it_stopped(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    scripted_llm.push(_bash("echo one >> n.txt"), s.auth_error())
    first = run.run(TASK)
    assert first.agent_state == AgentState.ERROR
    assert first.last_error == "STATUS$ERROR_LLM_AUTHENTICATION"
    assert first.iteration_flag.current_value == 2
    first_events = run.events()

    scripted_llm.push(_bash("echo two >> n.txt"), s.tool_call("finish", {"message": "Done."}))
    second = run.run(TASK)  # a new controller, stream and runtime over the same store

    assert second.agent_state == AgentState.FINISHED
    assert (run.workspace / "n.txt").read_text() == "one\ntwo\n"
    # The counters went on from where they were.
    assert second.iteration_flag.current_value == 4
    events = run.events()
    assert events[: len(first_events)] == first_events
    assert [e.id for e in events] == list(range(len(events)))
    assert len([e for e in events if isinstance(e, SystemMessageAction)]) == 1
    user_messages = [
        e.content for e in events if isinstance(e, MessageAction) and e.source == EventSource.USER
    ]
    assert user_messages == [TASK, RESUME_AFTER_ERROR_MESSAGE]  # the task is not given twice
    changes = state_changes(events[len(first_events) :])
    assert changes[0] == "running" and changes[-1] == "finished"

    # The model saw the whole conversation again, its earlier call answered.
    resumed = scripted_llm.completion_requests[2].messages
    dumped = json.dumps(resumed)
    assert [m["role"] for m in resumed[:2]] == ["system", "user"]
    assert TASK in dumped and RESUME_AFTER_ERROR_MESSAGE in dumped
    (call,) = next(m for m in resumed if m["role"] == "assistant")["tool_calls"]
    assert json.loads(call["function"]["arguments"])["command"] == "echo one >> n.txt"
    (result,) = [m for m in resumed if m["role"] == "tool"]
    assert result["tool_call_id"] == call["id"]
