"""The LLM wrapper over real HTTP to the scripted server (agent spec §7.3, §7.6)."""

from __future__ import annotations

import json
from pathlib import Path

import litellm
import pytest

from openhands.core.exceptions import LLMNoResponseError
from openhands.core.message import ImageContent, Message, TextContent
from openhands.llm.llm import LLM
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer
from tests.unit.llm.tools import EXECUTE_BASH, THINK

HI = [{"role": "user", "content": "hi"}]


def test_plain_completion(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("hello there"))
    llm = LLM(scripted_llm.llm_config(), service_id="agent")
    response = llm.completion(messages=HI)
    assert response.choices[0].message.content == "hello there"
    body = scripted_llm.last_request.body
    assert body["messages"] == HI
    assert body["model"] == "test-model"
    assert body["temperature"] == 0.0
    assert body["top_p"] == 1.0
    assert "tools" not in body
    assert scripted_llm.last_request.headers["Authorization"] == "Bearer x"


def test_messages_may_be_positional_and_message_objects(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("ok"))
    llm = LLM(scripted_llm.llm_config(), service_id="agent")
    llm.completion([Message(role="system", content=[TextContent(text="sys")])])
    # an unknown model has no caching/vision/function calling: string form
    assert scripted_llm.last_request.messages == [{"content": "sys", "role": "system"}]


def test_native_tool_calls(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.tool_call("think", {"thought": "plan"}, content="Thinking."))
    llm = LLM(scripted_llm.llm_config(native_tool_calling=True), service_id="agent")
    response = llm.completion(messages=HI, tools=[THINK, EXECUTE_BASH])
    message = response.choices[0].message
    assert message.content == "Thinking."
    assert message.tool_calls[0].function.name == "think"
    assert json.loads(message.tool_calls[0].function.arguments) == {"thought": "plan"}
    assert message.tool_calls[0].id == "call_scripted_1"
    assert scripted_llm.last_request.tools == [THINK, EXECUTE_BASH]


def test_function_calling_messages_use_list_form(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("ok"))
    llm = LLM(scripted_llm.llm_config(native_tool_calling=True), service_id="agent")
    llm.completion(
        messages=[
            Message(role="user", content=[TextContent(text="go")]),
            Message(
                role="assistant",
                content=[],
                tool_calls=[
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "think", "arguments": "{}"},
                    }
                ],
            ),
            Message(
                role="tool", content=[TextContent(text="done")], tool_call_id="c1", name="think"
            ),
        ],
        tools=[THINK],
    )
    sent = scripted_llm.last_request.messages
    assert sent[0] == {"content": [{"type": "text", "text": "go"}], "role": "user"}
    assert sent[1]["tool_calls"][0]["id"] == "c1"
    assert sent[2]["tool_call_id"] == "c1" and sent[2]["name"] == "think"


def test_empty_messages_raise_before_any_request(scripted_llm: ScriptedLLMServer) -> None:
    llm = LLM(scripted_llm.llm_config(), service_id="agent")
    with pytest.raises(ValueError, match="empty"):
        llm.completion(messages=[])
    assert scripted_llm.requests == []


def test_extra_body_only_for_litellm_proxy(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("a"), s.text("b"))
    extra = {"metadata": {"session_id": "sid-1"}}
    LLM(scripted_llm.llm_config(), "agent").completion(messages=HI, extra_body=extra)
    assert "metadata" not in scripted_llm.last_request.body
    proxy = LLM(scripted_llm.llm_config(model="litellm_proxy/test-model"), "agent")
    proxy.completion(messages=HI, extra_body=extra)
    assert scripted_llm.last_request.body["metadata"] == {"session_id": "sid-1"}


# --- metrics ----------------------------------------------------------------------------


def test_tokens_latency_and_no_cost_for_unknown_model(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(
        s.text("a", usage=s.Usage(prompt_tokens=120, completion_tokens=7)),
        s.text("b", usage=s.Usage(prompt_tokens=130, completion_tokens=5)),
    )
    llm = LLM(scripted_llm.llm_config(max_input_tokens=4096), "agent")
    llm.completion(messages=HI)
    llm.completion(messages=HI)

    data = llm.metrics.get()
    assert set(data) == {
        "accumulated_cost",
        "max_budget_per_task",
        "accumulated_token_usage",
        "costs",
        "response_latencies",
        "token_usages",
    }
    assert data["accumulated_cost"] == 0.0
    assert data["costs"] == []
    assert llm.cost_metric_supported is False
    assert [u["prompt_tokens"] for u in data["token_usages"]] == [120, 130]
    assert data["token_usages"][0]["per_turn_token"] == 127
    assert data["token_usages"][0]["response_id"] == "chatcmpl-scripted-1"
    assert data["token_usages"][0]["context_window"] == 4096
    total = data["accumulated_token_usage"]
    assert (total["prompt_tokens"], total["completion_tokens"]) == (250, 12)
    latencies = data["response_latencies"]
    assert [latency["response_id"] for latency in latencies] == [
        "chatcmpl-scripted-1",
        "chatcmpl-scripted-2",
    ]
    assert all(latency["latency"] >= 0 for latency in latencies)


def test_cache_tokens_are_recorded(scripted_llm: ScriptedLLMServer) -> None:
    usage = s.Usage(
        prompt_tokens=100, completion_tokens=2, cached_tokens=60, cache_creation_tokens=30
    )
    scripted_llm.push(s.text("a", usage=usage))
    llm = LLM(scripted_llm.llm_config(), "agent")
    llm.completion(messages=HI)
    recorded = llm.metrics.token_usages[0]
    assert (recorded.cache_read_tokens, recorded.cache_write_tokens) == (60, 30)


def test_cost_from_response_header(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("a", cost=0.125))
    llm = LLM(scripted_llm.llm_config(), "agent")
    llm.completion(messages=HI)
    assert llm.metrics.accumulated_cost == pytest.approx(0.125)
    assert llm.metrics.costs[0].cost == pytest.approx(0.125)


def test_cost_from_custom_prices(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("a", usage=s.Usage(prompt_tokens=1000, completion_tokens=100)))
    config = scripted_llm.llm_config(input_cost_per_token=1e-6, output_cost_per_token=3e-6)
    llm = LLM(config, "agent")
    llm.completion(messages=HI)
    assert llm.metrics.accumulated_cost == pytest.approx(1000 * 1e-6 + 100 * 3e-6)


def test_cost_from_litellm_price_table(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("a", usage=s.Usage(prompt_tokens=1000, completion_tokens=100)))
    llm = LLM(scripted_llm.llm_config(model="openai/gpt-4o"), "agent")
    llm.completion(messages=HI)
    prices = litellm.model_cost["gpt-4o"]
    expected = 1000 * prices["input_cost_per_token"] + 100 * prices["output_cost_per_token"]
    assert llm.metrics.accumulated_cost == pytest.approx(expected)
    assert llm.cost_metric_supported is True


def test_completion_log_file(scripted_llm: ScriptedLLMServer, tmp_path: Path) -> None:
    scripted_llm.push(s.text("logged", cost=0.5))
    config = scripted_llm.llm_config(log_completions=True, log_completions_folder=str(tmp_path))
    LLM(config, "agent").completion(messages=HI, extra_body={"x": 1})
    files = list(tmp_path.iterdir())
    assert len(files) == 1
    assert files[0].name.startswith("openai__test-model-")
    record = json.loads(files[0].read_text())
    assert record["messages"] == HI
    assert record["response"]["choices"][0]["message"]["content"] == "logged"
    assert record["cost"] == 0.5
    assert "messages" not in record["kwargs"]
    assert "fncall_messages" not in record


# --- empty responses ----------------------------------------------------------------------


def test_no_choices_is_retried_with_temperature_one(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.no_choices(), s.text("second try"))
    llm = LLM(scripted_llm.llm_config(), "agent")
    response = llm.completion(messages=HI)
    assert response.choices[0].message.content == "second try"
    temperatures = [r.body["temperature"] for r in scripted_llm.completion_requests]
    assert temperatures == [0.0, 1.0]
    # latency is recorded for every answered request; tokens and cost only for a usable one
    assert len(llm.metrics.response_latencies) == 2
    assert len(llm.metrics.token_usages) == 1


def test_no_choices_every_time_raises(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.no_choices(), s.no_choices())
    llm = LLM(scripted_llm.llm_config(num_retries=2), "agent")
    with pytest.raises(LLMNoResponseError):
        llm.completion(messages=HI)
    assert len(scripted_llm.completion_requests) == 2


# --- tokens and capabilities ----------------------------------------------------------


def test_token_count(scripted_llm: ScriptedLLMServer) -> None:
    llm = LLM(scripted_llm.llm_config(), "agent")
    short = llm.get_token_count([Message(role="user", content=[TextContent(text="hi")])])
    long = llm.get_token_count([{"role": "user", "content": "hello world " * 50}])
    assert 0 < short < long


def test_capabilities_for_unknown_model(
    scripted_llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENHANDS_FORCE_VISION", raising=False)
    llm = LLM(scripted_llm.llm_config(), "agent")
    assert not llm.is_function_calling_active()
    assert not llm.vision_is_active()
    assert not llm.is_caching_prompt_active()
    assert LLM(scripted_llm.llm_config(native_tool_calling=True), "a").is_function_calling_active()


def test_vision_detection(scripted_llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENHANDS_FORCE_VISION", raising=False)
    assert LLM(scripted_llm.llm_config(model="openai/gpt-4o"), "a").vision_is_active()
    disabled = scripted_llm.llm_config(model="openai/gpt-4o", disable_vision=True)
    assert not LLM(disabled, "a").vision_is_active()
    monkeypatch.setenv("OPENHANDS_FORCE_VISION", "yes")
    assert LLM(scripted_llm.llm_config(), "a").vision_is_active()


def test_caching_needs_model_and_flag(scripted_llm: ScriptedLLMServer) -> None:
    model = "anthropic/claude-sonnet-4-20250514"
    assert LLM(scripted_llm.llm_config(model=model), "a").is_caching_prompt_active()
    off = scripted_llm.llm_config(model=model, caching_prompt=False)
    assert not LLM(off, "a").is_caching_prompt_active()


def test_format_messages_for_llm(
    scripted_llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENHANDS_FORCE_VISION", raising=False)
    image_msg = Message(
        role="user",
        content=[TextContent(text="look", cache_prompt=True), ImageContent(image_urls=["u"])],
    )
    claude = LLM(scripted_llm.llm_config(model="anthropic/claude-sonnet-4-20250514"), "a")
    assert claude.format_messages_for_llm(image_msg) == [
        {
            "content": [
                {"type": "text", "text": "look", "cache_control": {"type": "ephemeral"}},
                {"type": "image_url", "image_url": {"url": "u"}},
            ],
            "role": "user",
        }
    ]
    deepseek = LLM(scripted_llm.llm_config(model="deepseek/deepseek-chat"), "a")
    assert deepseek.format_messages_for_llm([image_msg]) == [{"content": "look", "role": "user"}]
    # the caller's message is not changed
    assert image_msg.cache_enabled is False


def test_vision_support_is_looked_up_once_per_llm(
    scripted_llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LiteLLM's model-table lookup is slow; formatting a long history must not repeat it."""
    monkeypatch.delenv("OPENHANDS_FORCE_VISION", raising=False)
    asked: list[str] = []

    def supports_vision(model: str) -> bool:
        asked.append(model)
        return False

    monkeypatch.setattr(litellm, "supports_vision", supports_vision)
    llm = LLM(scripted_llm.llm_config(), "a")
    messages = [Message(role="user", content=[TextContent(text=f"m{i}")]) for i in range(50)]
    llm.format_messages_for_llm(messages)
    llm.format_messages_for_llm(messages)
    assert not llm.vision_is_active()
    assert asked == ["openai/test-model", "test-model"]
    # The environment switch is still read every time.
    monkeypatch.setenv("OPENHANDS_FORCE_VISION", "1")
    assert llm.vision_is_active()
