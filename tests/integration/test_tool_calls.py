"""Tool calls through the whole headless stack (agent.md §11 items 3, 5, 6).

CodeActAgent talks to the scripted LLM over HTTP (LiteLLM), the LocalRuntime runs the
commands on a temporary workspace, and the files it leaves behind show what really ran.
"""

from __future__ import annotations

import json
from pathlib import Path

from openhands.core.schema import AgentState
from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.observation import CmdOutputObservation, ErrorObservation
from tests.integration.harness import HeadlessRun, agent_actions, requires_tmux, state_changes
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

pytestmark = requires_tmux


def test_one_response_with_three_calls_runs_three_commands_in_order(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    log = run.path("log.txt")
    scripted_llm.push(
        s.tool_calls(
            [
                ("execute_bash", {"command": f"echo one >> {log}", "security_risk": "LOW"}),
                ("execute_bash", {"command": f"echo two >> {log}", "security_risk": "LOW"}),
                ("execute_bash", {"command": f"echo three >> {log}", "security_risk": "LOW"}),
            ],
            content="Writing three lines.",
        ),
        s.tool_call("finish", {"message": "Wrote them."}),
    )

    state = run.run("Write three lines to log.txt.")

    assert state.agent_state == AgentState.FINISHED
    assert Path(log).read_text().split() == ["one", "two", "three"]
    # The queued calls needed no LLM call: one for the three commands, one for finish.
    assert len(scripted_llm.completion_requests) == 2
    commands = [a for a in agent_actions(run.events()) if isinstance(a, CmdRunAction)]
    assert [a.thought for a in commands] == ["Writing three lines.", "", ""]
    metadata = [a.tool_call_metadata for a in commands]
    assert all(m is not None and m.total_calls_in_response == 3 for m in metadata)
    assert len({a.response_id for a in commands}) == 1
    # The follow-up request shows one assistant message, then the three results in call order.
    second = scripted_llm.completion_requests[1].messages
    assistant = next(m for m in second if m["role"] == "assistant")
    tool_ids = [m["tool_call_id"] for m in second if m["role"] == "tool"]
    assert tool_ids == [c["id"] for c in assistant["tool_calls"]]


def test_broken_tool_calls_become_errors_and_the_agent_tries_again(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    scripted_llm.push(
        s.tool_call("execute_bash", '{"command": "ls"'),  # not JSON
        s.tool_call("execute_bash", {"security_risk": "LOW"}),  # no command
        s.tool_call("web_read", {"url": "https://example.com"}),  # not a tool in 0.59
        s.tool_call("finish", {"message": "Gave up on those."}),
    )

    state = run.run("List the files.")

    assert state.agent_state == AgentState.FINISHED
    errors = [e.content for e in run.events() if isinstance(e, ErrorObservation)]
    assert len(errors) == 3
    assert errors[0].startswith('Failed to parse tool call arguments: {"command": "ls"')
    assert errors[1].startswith("Missing required argument")
    assert "command" in errors[1]
    assert errors[2].startswith("Tool web_read is not registered. (arguments: ")
    assert errors[2].endswith("Please check the tool name and retry with an existing tool.")
    # Each error reached the model as the next user turn, with the error marker.
    for request, error in zip(scripted_llm.completion_requests[1:], errors, strict=True):
        last = request.messages[-1]
        assert last["role"] == "user"
        assert json.dumps(error + "\n[Error occurred in processing last action]")[1:-1] in (
            json.dumps(last["content"])
        )


def test_a_plain_text_reply_waits_for_the_user(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    scripted_llm.push(
        s.text("Which file do you mean?"),
        s.tool_call("execute_bash", {"command": "true", "security_risk": "LOW"}),
        s.tool_call("finish", {"message": "Done."}),
    )
    replies: list[str] = []

    def answer(_state: object) -> str:
        replies.append("notes.txt")
        return "notes.txt"

    state = run.run("Open the file.", fake_user_response=answer)

    assert state.agent_state == AgentState.FINISHED
    events = run.events()
    question = next(e for e in agent_actions(events) if isinstance(e, MessageAction))
    assert question.content == "Which file do you mean?" and question.wait_for_response
    assert replies == ["notes.txt"]
    changes = state_changes(events)
    assert changes.index("awaiting_user_input") < changes.index("finished")
    assert any(isinstance(e, CmdOutputObservation) and e.command == "true" for e in events)
