"""Mock function calling inside LLM.completion, over real HTTP (agent spec §3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import litellm
import pytest

from openhands.core.exceptions import FunctionCallValidationError
from openhands.llm.fn_call_prompt import EXAMPLE_SUFFIX, in_context_example, system_suffix
from openhands.llm.llm import LLM
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer
from tests.unit.llm.tools import DEFAULT_TOOLS, EXECUTE_BASH, FINISH, THINK

TOOLS = [EXECUTE_BASH, THINK, FINISH]
CONVERSATION = [
    {"role": "system", "content": "You are a careful agent."},
    {"role": "user", "content": "List the files."},
]
BASH_CALL_TEXT = (
    "I will list them.\n<function=execute_bash>\n<parameter=command>ls -la</parameter>\n"
    "<parameter=security_risk>LOW</parameter>\n"
)  # what a model stopped at "</function" sends back


def _mock_llm(server: ScriptedLLMServer, **overrides: Any) -> LLM:
    return LLM(server.llm_config(**overrides), "agent")


def test_request_carries_tools_in_prompt_not_in_tools(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text(BASH_CALL_TEXT))
    llm = _mock_llm(scripted_llm)
    assert not llm.is_function_calling_active()
    llm.completion(messages=CONVERSATION, tools=TOOLS, tool_choice="auto")

    body = scripted_llm.last_request.body
    assert "tools" not in body and "tool_choice" not in body
    assert body["stop"] == ["</function"]
    system, user = body["messages"]
    assert system["content"] == "You are a careful agent." + system_suffix(TOOLS)
    assert "---- BEGIN FUNCTION #1: execute_bash ----" in system["content"]
    assert user["content"] == in_context_example(TOOLS) + "List the files." + EXAMPLE_SUFFIX


def test_text_reply_comes_back_as_tool_call(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text(BASH_CALL_TEXT))
    response = _mock_llm(scripted_llm).completion(messages=CONVERSATION, tools=TOOLS)
    message = response.choices[0].message
    assert message.content == "I will list them."
    assert len(message.tool_calls) == 1
    call = message.tool_calls[0]
    assert call.id == "toolu_01"
    assert call.function.name == "execute_bash"
    assert json.loads(call.function.arguments) == {"command": "ls -la", "security_risk": "LOW"}


def test_history_with_tool_calls_is_rendered_and_ids_continue(
    scripted_llm: ScriptedLLMServer,
) -> None:
    history = [
        *CONVERSATION,
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "toolu_01",
                    "type": "function",
                    "function": {"name": "think", "arguments": json.dumps({"thought": "ok"})},
                }
            ],
        },
        {
            "role": "tool",
            "content": "Your thought has been logged.",
            "tool_call_id": "toolu_01",
            "name": "think",
        },
    ]
    scripted_llm.push(s.text(BASH_CALL_TEXT))
    response = _mock_llm(scripted_llm).completion(messages=history, tools=TOOLS)
    sent = scripted_llm.last_request.messages
    assert sent[2] == {
        "role": "assistant",
        "content": "<function=think>\n<parameter=thought>ok</parameter>\n</function>",
    }
    assert sent[3] == {
        "role": "user",
        "content": "EXECUTION RESULT of [think]:\nYour thought has been logged.",
    }
    assert response.choices[0].message.tool_calls[0].id == "toolu_02"


def test_plain_answer_stays_a_message(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("There is nothing to do."))
    message = (
        _mock_llm(scripted_llm).completion(messages=CONVERSATION, tools=TOOLS).choices[0].message
    )
    assert message.content == "There is nothing to do."
    assert not message.tool_calls


def test_invalid_call_raises_validation_error(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("<function=execute_bash>\n<parameter=command>ls</parameter>\n"))
    with pytest.raises(FunctionCallValidationError, match="security_risk"):
        _mock_llm(scripted_llm).completion(messages=CONVERSATION, tools=TOOLS)


def test_native_tool_calling_false_forces_mock_mode(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text(BASH_CALL_TEXT))
    llm = _mock_llm(scripted_llm, model="openai/gpt-4o", native_tool_calling=False)
    llm.completion(messages=CONVERSATION, tools=TOOLS)
    assert "tools" not in scripted_llm.last_request.body


def test_native_model_sends_tools(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("ok"))
    _mock_llm(scripted_llm, model="openai/gpt-4o").completion(messages=CONVERSATION, tools=TOOLS)
    body = scripted_llm.last_request.body
    assert body["tools"] == TOOLS
    assert "stop" not in body


def test_no_stop_word_for_models_that_reject_it(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("ok"), s.text("ok"))
    _mock_llm(scripted_llm, model="openai/grok-code-fast-1").completion(
        messages=CONVERSATION, tools=TOOLS
    )
    assert "stop" not in scripted_llm.last_request.body
    _mock_llm(scripted_llm, disable_stop_word=True).completion(messages=CONVERSATION, tools=TOOLS)
    assert "stop" not in scripted_llm.last_request.body


@pytest.mark.parametrize("model", ["openai/openhands-lm-32b-v0.1", "openai/devstral-small-2505"])
def test_no_example_for_openhands_lm_and_devstral(
    scripted_llm: ScriptedLLMServer, model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # LiteLLM itself drops tool_choice from a request without tools, so look at what we
    # hand to LiteLLM (the call still goes through to the server).
    seen: dict[str, object] = {}
    real_completion = litellm.completion

    def recording_completion(**kwargs: object) -> object:
        seen.update(kwargs)
        return real_completion(**kwargs)

    # The LLM binds openhands.llm.llm.litellm_completion when it is created.
    monkeypatch.setattr("openhands.llm.llm.litellm_completion", recording_completion)
    scripted_llm.push(s.text("ok"))
    _mock_llm(scripted_llm, model=model).completion(
        messages=CONVERSATION, tools=DEFAULT_TOOLS, tool_choice="auto"
    )
    body = scripted_llm.last_request.body
    assert body["messages"][1]["content"] == "List the files."
    assert "tools" not in seen
    if "openhands-lm" in model:
        assert seen["tool_choice"] == "none"
    else:
        assert "tool_choice" not in seen


def test_completion_log_has_both_forms(scripted_llm: ScriptedLLMServer, tmp_path: Path) -> None:
    scripted_llm.push(s.text(BASH_CALL_TEXT))
    llm = _mock_llm(scripted_llm, log_completions=True, log_completions_folder=str(tmp_path))
    llm.completion(messages=CONVERSATION, tools=TOOLS)
    (log_file,) = tmp_path.iterdir()
    record = json.loads(log_file.read_text())
    assert record["fncall_messages"] == CONVERSATION
    assert record["messages"][0]["content"].endswith(system_suffix(TOOLS))
    assert record["response"]["choices"][0]["message"]["content"] == BASH_CALL_TEXT
    fncall_message = record["fncall_response"]["choices"][0]["message"]
    assert fncall_message["tool_calls"][0]["function"]["name"] == "execute_bash"
