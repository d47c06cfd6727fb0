"""Condensers that call an LLM, against the scripted OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest

from openhands.controller.state.state import State
from openhands.core.config import OpenHandsConfig
from openhands.core.config.condenser_config import (
    LLMAttentionCondenserConfig,
    LLMSummarizingCondenserConfig,
    StructuredSummaryCondenserConfig,
)
from openhands.events.observation import AgentCondensationObservation
from openhands.llm.llm import LLM
from openhands.llm.llm_registry import LLMRegistry
from openhands.memory.condenser import (
    Condensation,
    Condenser,
    LLMAttentionCondenser,
    LLMSummarizingCondenser,
    StructuredSummaryCondenser,
)
from openhands.memory.condenser.condenser import CONDENSER_METADATA_KEY
from openhands.memory.condenser.impl import llm_attention_condenser
from openhands.memory.condenser.impl.llm_attention_condenser import select_kept_ids
from openhands.memory.view import View
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer
from tests.unit.memory.history import conversation, numbered, output, run, user


def _registry(server: ScriptedLLMServer) -> LLMRegistry:
    config = OpenHandsConfig()
    config.set_llm_config(server.llm_config())
    return LLMRegistry(config)


def _prompt_of(server: ScriptedLLMServer) -> str:
    messages = server.last_request.messages
    assert len(messages) == 1 and messages[0]["role"] == "user"
    content = messages[0]["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def test_summarizing_condenser_end_to_end(scripted_llm: ScriptedLLMServer) -> None:
    registry = _registry(scripted_llm)
    config = LLMSummarizingCondenserConfig(
        llm_config=scripted_llm.llm_config(), max_size=10, keep_first=1
    )
    condenser = Condenser.from_config(config, registry)
    assert isinstance(condenser, LLMSummarizingCondenser)
    assert registry.service_to_llm["condenser"].config.caching_prompt is False

    history = conversation(10)  # 24 events, ids 0..23
    state = State(history=history)
    # Not yet: 10 events is not more than max_size.
    assert isinstance(condenser.condensed_history(State(history=history[:10])), View)
    assert scripted_llm.completion_requests == []

    scripted_llm.push(s.text("USER_CONTEXT: wants steps run"))
    result = condenser.condensed_history(state)
    assert isinstance(result, Condensation)
    action = result.action
    # tail = 10 // 2 - 1 - 1 = 3 events (21..23); 1..20 are summarised.
    assert (action.forgotten_events_start_id, action.forgotten_events_end_id) == (1, 20)
    assert action.summary == "USER_CONTEXT: wants steps run"
    assert action.summary_offset == 1

    prompt = _prompt_of(scripted_llm)
    assert "<PREVIOUS SUMMARY>\nNo events summarized\n</PREVIOUS SUMMARY>" in prompt
    assert "<EVENT id=1>\n" in prompt and "<EVENT id=20>\n" in prompt
    assert "<EVENT id=0>" not in prompt and "<EVENT id=21>" not in prompt
    assert "TASK_TRACKING" in prompt
    meta = state.extra_data[CONDENSER_METADATA_KEY][-1]
    assert meta["response"]["choices"][0]["message"]["content"] == action.summary
    assert meta["metrics"]["accumulated_token_usage"]["prompt_tokens"] > 0

    # The next round sees the summary after the head and folds it into the new one.
    action.id = 24
    more = [*history, action, *numbered(*(run(f"more {i}") for i in range(8)), start=25)]
    view = View.from_events(more)
    assert isinstance(view[1], AgentCondensationObservation)
    scripted_llm.push(s.text("second summary"))
    second = condenser.condensed_history(State(history=more))
    assert isinstance(second, Condensation)
    prompt = _prompt_of(scripted_llm)
    assert "<PREVIOUS SUMMARY>\nUSER_CONTEXT: wants steps run\n</PREVIOUS SUMMARY>" in prompt
    # view: 0, summary, 21..23, 25..32 → the summary and the head stay out of the range.
    assert (second.action.forgotten_events_start_id, second.action.forgotten_events_end_id) == (
        21,
        29,
    )


def test_summarizing_truncates_long_events(scripted_llm: ScriptedLLMServer) -> None:
    llm = LLM(scripted_llm.llm_config(), "condenser")
    condenser = LLMSummarizingCondenser(llm, max_size=4, keep_first=0, max_event_length=100)
    events = numbered(user("u"), output("x" * 5000), run("a"), run("b"), run("c"))
    scripted_llm.push(s.text("short"))
    result = condenser.condense(View.from_events(events))
    assert isinstance(result, Condensation)
    prompt = _prompt_of(scripted_llm)
    assert "[... Observation truncated due to length ...]" in prompt
    assert "x" * 200 not in prompt


def test_summarizing_answers_a_request_on_a_short_view(scripted_llm: ScriptedLLMServer) -> None:
    from openhands.events.action import CondensationRequestAction

    llm = LLM(scripted_llm.llm_config(), "condenser")
    condenser = LLMSummarizingCondenser(llm, max_size=100, keep_first=1)
    events = conversation(3) + numbered(CondensationRequestAction(), start=10)
    scripted_llm.push(s.text("requested summary"))
    result = condenser.condense(View.from_events(events))
    assert isinstance(result, Condensation)
    assert result.action.summary == "requested summary"
    assert 0 not in result.action.forgotten and result.action.forgotten


def test_structured_summary_forces_the_tool(scripted_llm: ScriptedLLMServer) -> None:
    llm = LLM(scripted_llm.llm_config(native_tool_calling=True), "condenser")
    condenser = StructuredSummaryCondenser(llm, max_size=10, keep_first=1)
    scripted_llm.push(
        s.tool_call(
            "create_state_summary",
            {
                "user_context": "build a CLI",
                "completed_tasks": "parser",
                "pending_tasks": "tests",
                "branch_name": "feat/cli",
            },
        )
    )
    result = condenser.condense(View.from_events(conversation(10)))
    assert isinstance(result, Condensation)
    body = scripted_llm.last_request.body or {}
    assert body["tool_choice"] == {"type": "function", "function": {"name": "create_state_summary"}}
    tool = body["tools"][0]["function"]
    assert tool["name"] == "create_state_summary"
    assert tool["parameters"]["required"] == ["user_context", "completed_tasks", "pending_tasks"]
    assert len(tool["parameters"]["properties"]) == 18
    summary = result.action.summary or ""
    assert summary.startswith("# State Summary")
    assert "build a CLI" in summary and "feat/cli" in summary
    assert (result.action.forgotten_events_start_id, result.action.forgotten_events_end_id) == (
        1,
        20,
    )


def test_structured_summary_survives_bad_arguments(scripted_llm: ScriptedLLMServer) -> None:
    llm = LLM(scripted_llm.llm_config(native_tool_calling=True), "condenser")
    condenser = StructuredSummaryCondenser(llm, max_size=10, keep_first=1)
    scripted_llm.push(s.tool_call("create_state_summary", "{not json"))
    result = condenser.condense(View.from_events(conversation(10)))
    assert isinstance(result, Condensation)
    assert (result.action.summary or "").startswith("# State Summary")


def test_structured_summary_needs_function_calling(scripted_llm: ScriptedLLMServer) -> None:
    with pytest.raises(ValueError, match="function calling"):
        Condenser.from_config(
            StructuredSummaryCondenserConfig(llm_config=scripted_llm.llm_config()),
            _registry(scripted_llm),
        )


def test_attention_needs_response_schema(scripted_llm: ScriptedLLMServer) -> None:
    with pytest.raises(ValueError, match="response_schema"):
        Condenser.from_config(
            LLMAttentionCondenserConfig(llm_config=scripted_llm.llm_config()),
            _registry(scripted_llm),
        )


def test_attention_keeps_ranked_events_and_forgets_an_id_list(
    scripted_llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(llm_attention_condenser, "supports_response_schema", lambda llm: True)
    llm = LLM(scripted_llm.llm_config(), "condenser")
    condenser = LLMAttentionCondenser(llm, max_size=10, keep_first=1)
    # budget = 10 // 2 - 1 = 4: the model ranks 0 (head, ignored), 5, 7 and an unknown id.
    scripted_llm.push(s.text(json.dumps({"ids": [0, 5, 99, 7]})))
    result = condenser.condense(View.from_events(conversation(5)))  # 14 events
    assert isinstance(result, Condensation)
    body = scripted_llm.last_request.body or {}
    assert body["response_format"]["type"] == "json_schema"
    assert "<ID>3</ID>" in json.dumps(body["messages"])
    # kept: head 0, ranked 5 and 7, topped up with the most recent 13 and 12.
    assert result.action.forgotten_event_ids == [1, 2, 3, 4, 6, 8, 9, 10, 11]


def test_select_kept_ids_caps_the_ranking() -> None:
    view = View.from_events(conversation(3))
    assert select_kept_ids(view, [0], [9, 8, 7, 6], budget=2) == {0, 9, 8}
