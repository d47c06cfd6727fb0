"""Delegation between two real agents (agent.md §8.9, §11 item 29).

CodeActAgent hands a task to BrowsingAgent with the legacy `delegate_to_browsing_agent`
call. Both talk to the scripted LLM (delegates share the parent's `agent` LLM, a reference
quirk); the LocalRuntime answers the browser action (browsing is off, so with an error).
The parent gets the result as an AgentDelegateObservation answering its call.
"""

from __future__ import annotations

import json
from pathlib import Path

from openhands.core.schema import AgentState
from openhands.events.action import AgentDelegateAction, BrowseInteractiveAction, MessageAction
from openhands.events.event import EventSource
from openhands.events.observation import AgentDelegateObservation
from tests.integration.harness import HeadlessRun, requires_tmux
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

pytestmark = requires_tmux

RESULT = "Delegated agent finished with result:\n\nBrowsingAgent finishes task with content: 42"


def test_a_delegate_does_the_task_and_its_result_answers_the_call(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    scripted_llm.push(
        s.tool_call("delegate_to_browsing_agent", {"task": "Find the answer."}),
        # BrowsingAgent answers in text; the stop word has cut the closing fence.
        s.text('The answer is on the page.\n```send_msg_to_user("42")'),
        s.tool_call("finish", {"message": "The answer is 42."}),
    )

    state = run.run("Ask the browsing agent for the answer.")

    assert state.agent_state == AgentState.FINISHED
    assert state.outputs == {}
    events = run.events()
    delegate = next(e for e in events if isinstance(e, AgentDelegateAction))
    assert delegate.agent == "BrowsingAgent" and delegate.inputs == {"task": "Find the answer."}
    task = next(e for e in events if isinstance(e, MessageAction) and e.content.startswith("TASK"))
    assert task.content == "TASK: Find the answer." and task.source == EventSource.USER
    browse = next(e for e in events if isinstance(e, BrowseInteractiveAction))
    assert browse.browsergym_send_msg_to_user == "42"

    (result,) = [e for e in events if isinstance(e, AgentDelegateObservation)]
    assert result.content == RESULT
    assert result.outputs == {"content": "42"}
    assert result.source == EventSource.AGENT
    assert delegate.tool_call_metadata is not None and result.tool_call_metadata is not None
    assert result.tool_call_metadata.tool_call_id == delegate.tool_call_metadata.tool_call_id

    parent_first, delegate_call, parent_last = scripted_llm.completion_requests
    assert "tools" in parent_first.body and "tools" not in delegate_call.body
    assert "Find the answer." in json.dumps(delegate_call.messages)
    # The parent sees its call answered by the result, and nothing of the delegate's work.
    (answer,) = [m for m in parent_last.messages if m["role"] == "tool"]
    assert answer["tool_call_id"] == delegate.tool_call_metadata.tool_call_id
    # Its text is the delegate's `content` output when there is one (agent.md §5.3).
    assert answer["content"] == [{"type": "text", "text": "42"}]
    assert "TASK: Find the answer." not in json.dumps(parent_last.messages)
    assert "send_msg_to_user" not in json.dumps(parent_last.messages)
    # One iteration counter for both: parent 2 steps, delegate 3 (browse, message, finish).
    assert state.iteration_flag.current_value == 5
