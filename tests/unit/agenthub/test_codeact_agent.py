"""CodeActAgent.step through a real LLM call to the scripted server (spec §2.4, §2.5)."""

from __future__ import annotations

from typing import Any

import pytest

from openhands.agenthub.codeact_agent import CodeActAgent
from openhands.controller.agent import Agent
from openhands.events.action import (
    ActionSecurityRisk,
    AgentFinishAction,
    AgentThinkAction,
    CmdRunAction,
    CondensationAction,
    CondensationRequestAction,
    FileReadAction,
    MessageAction,
)
from openhands.events.event import Event, EventSource
from openhands.events.observation import CmdOutputMetadata, CmdOutputObservation
from openhands.runtime.plugins import AgentSkillsRequirement, JupyterRequirement
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer
from tests.unit.agenthub.agents import agent_config, registry, state_with, user_message

DEFAULT_TOOL_NAMES = [
    "execute_bash",
    "think",
    "finish",
    "browser",
    "execute_ipython_cell",
    "task_tracker",
    "str_replace_editor",
]


def _agent(server: ScriptedLLMServer, **llm: Any) -> CodeActAgent:
    return CodeActAgent(agent_config(), registry(server.llm_config(**llm)))


def _start(agent: CodeActAgent, *more: Event) -> Any:
    system = agent.get_system_message()
    assert system is not None
    return state_with(system, user_message("List the files, then explain them."), *more)


def _text(message: dict[str, Any]) -> str:
    content = message["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def test_registered_with_version_and_plugins() -> None:
    import openhands.agenthub  # noqa: F401

    assert Agent.get_cls("CodeActAgent") is CodeActAgent
    assert CodeActAgent.VERSION == "2.2"
    assert CodeActAgent.sandbox_plugins == [AgentSkillsRequirement(), JupyterRequirement()]


def test_system_message_carries_prompt_and_tools(scripted_llm: ScriptedLLMServer) -> None:
    agent = _agent(scripted_llm)
    system = agent.get_system_message()
    assert system is not None
    assert system.agent_class == "CodeActAgent"
    assert system.source == EventSource.AGENT
    assert [t["function"]["name"] for t in system.tools or []] == DEFAULT_TOOL_NAMES
    assert "<TASK_MANAGEMENT>" in system.content  # plan mode: long-horizon prompt
    assert "<SECURITY_RISK_ASSESSMENT>" in system.content
    assert "sandbox" in system.content

    plain = CodeActAgent(
        agent_config(enable_plan_mode=False, cli_mode=True),
        registry(scripted_llm.llm_config()),
    ).get_system_message()
    assert plain is not None
    assert "<TASK_MANAGEMENT>" not in plain.content
    assert "own machine" in plain.content


def test_native_tool_calls_become_queued_actions(scripted_llm: ScriptedLLMServer) -> None:
    agent = _agent(scripted_llm, native_tool_calling=True)
    state = _start(agent)
    scripted_llm.push(
        s.tool_calls(
            [
                ("execute_bash", {"command": "ls", "security_risk": "LOW"}),
                ("str_replace_editor", {"command": "view", "path": "/workspace/a.py"}),
                ("think", {"thought": "then explain"}),
            ],
            content="Looking first.",
        )
    )

    first = agent.step(state)
    assert len(scripted_llm.completion_requests) == 1
    second, third = agent.step(state), agent.step(state)
    assert len(scripted_llm.completion_requests) == 1  # queued: no more LLM calls

    assert isinstance(first, CmdRunAction)
    assert (first.command, first.thought) == ("ls", "Looking first.")
    assert first.security_risk == ActionSecurityRisk.LOW
    assert isinstance(second, FileReadAction) and second.path == "/workspace/a.py"
    assert isinstance(third, AgentThinkAction) and third.thought == "then explain"
    response_id = first.response_id
    assert response_id and response_id.startswith("chatcmpl-scripted")
    for index, action in enumerate((first, second, third)):
        metadata = action.tool_call_metadata
        assert metadata is not None
        assert metadata.total_calls_in_response == 3
        assert metadata.tool_call_id == f"call_scripted_{index + 1}"
        assert action.response_id == response_id

    body = scripted_llm.last_request.body or {}
    assert [t["function"]["name"] for t in body["tools"]] == DEFAULT_TOOL_NAMES
    assert "metadata" not in body  # extra_body only goes to litellm_proxy models
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user"]
    assert _text(body["messages"][0]).startswith("You are OpenHands agent")
    assert _text(body["messages"][1]) == "List the files, then explain them."


def test_mock_function_calling_gives_the_same_actions(scripted_llm: ScriptedLLMServer) -> None:
    agent = _agent(scripted_llm)  # openai/test-model has no native tool calling
    assert not agent.llm.is_function_calling_active()
    state = _start(agent)
    scripted_llm.push(
        s.text(
            "Looking first.\n<function=execute_bash>\n<parameter=command>ls</parameter>\n"
            "<parameter=security_risk>LOW</parameter>\n"
        )  # cut at the stop word, as a real model would be
    )
    action = agent.step(state)
    assert isinstance(action, CmdRunAction)
    assert (action.command, action.thought) == ("ls", "Looking first.")
    assert action.security_risk == ActionSecurityRisk.LOW
    metadata = action.tool_call_metadata
    assert metadata is not None
    assert (metadata.function_name, metadata.tool_call_id) == ("execute_bash", "toolu_01")
    assert metadata.total_calls_in_response == 1

    body = scripted_llm.last_request.body or {}
    assert "tools" not in body
    assert body["stop"] == ["</function"]
    assert "execute_bash" in _text(body["messages"][0])


def test_a_whole_turn_pairs_the_call_with_its_output(scripted_llm: ScriptedLLMServer) -> None:
    agent = _agent(scripted_llm, native_tool_calling=True)
    scripted_llm.push(s.tool_call("execute_bash", {"command": "ls"}, content="Listing."))
    state = _start(agent)
    action = agent.step(state)
    action.id = len(state.history)
    action.source = EventSource.AGENT  # as the controller publishes it
    state.history.append(action)
    output = CmdOutputObservation(
        content="a.py", command="ls", metadata=CmdOutputMetadata(exit_code=0)
    )
    output.tool_call_metadata = action.tool_call_metadata
    output.cause = action.id
    output.id = len(state.history)
    output.source = EventSource.AGENT
    state.history.append(output)

    scripted_llm.push(s.text("a.py is the only file."))
    reply = agent.step(state)
    assert isinstance(reply, MessageAction)
    assert reply.wait_for_response is True
    assert reply.content == "a.py is the only file."

    messages = scripted_llm.last_request.messages
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]
    assert messages[2]["tool_calls"][0]["function"]["name"] == "execute_bash"
    assert _text(messages[2]) == "Listing."
    assert messages[3]["tool_call_id"] == messages[2]["tool_calls"][0]["id"]
    assert _text(messages[3]) == "a.py\n[Command finished with exit code 0]"


def test_exit_finishes_without_calling_the_llm(scripted_llm: ScriptedLLMServer) -> None:
    agent = _agent(scripted_llm)
    state = _start(agent, user_message("  /exit  "))
    action = agent.step(state)
    assert isinstance(action, AgentFinishAction)
    assert scripted_llm.completion_requests == []


def test_condensation_is_returned_instead_of_calling_the_llm(
    scripted_llm: ScriptedLLMServer,
) -> None:
    agent = _agent(scripted_llm)
    more: list[Event] = []
    for i in range(4):
        more += [
            CmdRunAction(command=f"step {i}"),
            CmdOutputObservation(content="ok", command=f"step {i}"),
        ]
    state = _start(agent, *more, CondensationRequestAction())
    action = agent.step(state)
    assert isinstance(action, CondensationAction)
    assert action.forgotten  # the conversation_window condenser made room
    assert scripted_llm.completion_requests == []


def test_no_user_message_is_an_error(scripted_llm: ScriptedLLMServer) -> None:
    agent = _agent(scripted_llm)
    system = agent.get_system_message()
    assert system is not None
    with pytest.raises(ValueError, match="Initial user message not found"):
        agent.step(state_with(system))


def test_reset_drops_queued_actions(scripted_llm: ScriptedLLMServer) -> None:
    agent = _agent(scripted_llm, native_tool_calling=True)
    scripted_llm.push(
        s.tool_calls([("think", {"thought": "a"}), ("think", {"thought": "b"})]),
        s.text("fresh answer"),
    )
    state = _start(agent)
    agent.step(state)
    assert len(agent.pending_actions) == 1
    agent.reset()
    assert not agent.pending_actions
    assert isinstance(agent.step(state), MessageAction)
    assert len(scripted_llm.completion_requests) == 2


def test_prompt_caching_for_caching_models(scripted_llm: ScriptedLLMServer) -> None:
    agent = _agent(scripted_llm, model="openai/claude-sonnet-4-20250514")
    assert agent.llm.is_caching_prompt_active()
    scripted_llm.push(s.text("ok"))
    agent.step(_start(agent))
    messages = scripted_llm.last_request.messages
    assert messages[0]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert messages[-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


def test_mcp_tools_are_appended_and_dispatched(scripted_llm: ScriptedLLMServer) -> None:
    agent = _agent(scripted_llm, native_tool_calling=True)
    fetch = {
        "type": "function",
        "function": {
            "name": "fetch",
            "description": "Fetch a URL",
            "parameters": {"type": "object", "properties": {"url": {"type": "string"}}},
        },
    }
    agent.set_mcp_tools([fetch])
    scripted_llm.push(s.tool_call("fetch", {"url": "http://localhost"}))
    action = agent.step(_start(agent))
    assert type(action).__name__ == "MCPAction"
    body = scripted_llm.last_request.body or {}
    assert [t["function"]["name"] for t in body["tools"]][-1] == "fetch"
