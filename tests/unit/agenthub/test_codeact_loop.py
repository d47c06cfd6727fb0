"""CodeActAgent inside the real loop: AgentController, Memory and an EventStream, with the
scripted LLM server and a minimal runtime that answers on the stream."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from openhands.agenthub.codeact_agent import CodeActAgent
from openhands.controller.agent_controller import AgentController
from openhands.core.schema import AgentState
from openhands.events.action import (
    Action,
    AgentFinishAction,
    AgentThinkAction,
    CmdRunAction,
    MessageAction,
)
from openhands.events.event import Event, EventSource
from openhands.events.observation import (
    AgentThinkObservation,
    CmdOutputMetadata,
    CmdOutputObservation,
    Observation,
    RecallObservation,
)
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.memory.memory import Memory
from openhands.storage.memory import InMemoryFileStore
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer
from tests.unit.agenthub.agents import agent_config, registry

REPO_MICROAGENTS = Path(__file__).resolve().parents[3] / "microagents"


class _Runtime:
    """Answers shell commands and thoughts like the runtime does (cause + tool metadata)."""

    def __init__(self, stream: EventStream) -> None:
        self.stream = stream
        stream.subscribe(EventStreamSubscriber.RUNTIME, self.on_event, "test-runtime")

    def on_event(self, event: Event) -> None:
        answer: Observation
        if isinstance(event, CmdRunAction):
            answer = CmdOutputObservation(
                content="README.md", command=event.command, metadata=CmdOutputMetadata(exit_code=0)
            )
        elif isinstance(event, AgentThinkAction):
            answer = AgentThinkObservation(content="Your thought has been logged.")
        else:
            return
        answer.cause = event.id
        answer.tool_call_metadata = event.tool_call_metadata
        self.stream.add_event(answer, event.source or EventSource.AGENT)


def _wait(predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError("condition not reached in time")


@pytest.fixture
def stream() -> Iterator[EventStream]:
    stream = EventStream("loop", InMemoryFileStore())
    yield stream
    stream.close()


def test_a_task_runs_to_finish(
    scripted_llm: ScriptedLLMServer, stream: EventStream, tmp_path: Path
) -> None:
    scripted_llm.push(
        s.tool_calls(
            [
                ("execute_bash", {"command": "git status", "security_risk": "LOW"}),
                ("think", {"thought": "Only a README."}),
            ],
            content="Checking the repository.",
        ),
        s.tool_call("finish", {"message": "Nothing to commit."}, content="Done."),
    )
    agent = CodeActAgent(
        agent_config(), registry(scripted_llm.llm_config(native_tool_calling=True))
    )
    _Runtime(stream)
    Memory(stream, "loop", global_microagents_dir=REPO_MICROAGENTS, user_microagents_dir=None)
    controller = AgentController(
        agent=agent, event_stream=stream, conversation_stats=None, iteration_delta=10, sid="loop"
    )
    try:
        stream.add_event(MessageAction(content="Please commit my changes."), EventSource.USER)
        _wait(lambda: controller.get_agent_state() == AgentState.FINISHED)
    finally:
        asyncio.run(controller.close())

    events = list(stream.search_events())
    finish = next(e for e in events if isinstance(e, AgentFinishAction))
    assert finish.final_thought == "Nothing to commit."
    recall = next(e for e in events if isinstance(e, RecallObservation))
    assert "git" in [k.name for k in recall.microagent_knowledge]  # "commit" triggered it

    requests = scripted_llm.completion_requests
    assert len(requests) == 2  # the queued think action needed no extra call
    first, second = (r.messages for r in requests)
    assert [m["role"] for m in first] == ["system", "user", "user"]
    assert "<EXTRA_INFO>" in json.dumps(first[2])
    assert [m["role"] for m in second] == ["system", "user", "user", "assistant", "tool", "tool"]
    calls = second[3]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["execute_bash", "think"]
    assert [m["tool_call_id"] for m in second[4:]] == [c["id"] for c in calls]
    assert "README.md" in json.dumps(second[4])

    actions = [e for e in events if isinstance(e, Action) and e.source == EventSource.AGENT]
    assert all(a.tool_call_metadata is not None for a in actions if a.runnable)


def test_rate_limit_that_outlasts_the_retries_ends_in_error(
    scripted_llm: ScriptedLLMServer, stream: EventStream
) -> None:
    """Through the real LLM wrapper: 429s beyond num_retries end the run in ERROR, not in a
    RATE_LIMITED state that a headless run would wait in forever (reference quirk)."""
    scripted_llm.push(*[s.rate_limit_error() for _ in range(3)])
    agent = CodeActAgent(
        agent_config(),
        registry(scripted_llm.llm_config(native_tool_calling=True, num_retries=2)),
    )
    _Runtime(stream)
    Memory(stream, "loop", global_microagents_dir=None, user_microagents_dir=None)
    controller = AgentController(
        agent=agent,
        event_stream=stream,
        conversation_stats=None,
        iteration_delta=10,
        sid="loop",
        status_callback=lambda level, status, msg: None,
    )
    try:
        stream.add_event(MessageAction(content="Hello"), EventSource.USER)
        _wait(lambda: controller.get_agent_state() == AgentState.ERROR)
    finally:
        asyncio.run(controller.close())
    assert len(scripted_llm.completion_requests) == 2
    assert controller.get_state().last_error == "CHAT_INTERFACE$AGENT_RATE_LIMITED_STOPPED_MESSAGE"
    reasons = [
        e.reason for e in stream.search_events() if getattr(e, "agent_state", None) == "error"
    ]
    assert reasons == ["CHAT_INTERFACE$AGENT_RATE_LIMITED_STOPPED_MESSAGE"]
