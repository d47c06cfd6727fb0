"""The chat-completion fast path gives the body the OpenAI SDK's own transform gives."""

from __future__ import annotations

import datetime
from typing import Annotated, Any, Required

import pydantic
import pytest
from openai._types import NOT_GIVEN, omit
from openai._utils import PropertyInfo, is_given, maybe_transform
from openai.types.chat import completion_create_params as params
from typing_extensions import TypedDict

import openhands.llm.llm  # noqa: F401 - installs the fast path, as every LLM user does
from openhands.llm import openai_body
from openhands.llm.llm import LLM
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

TOOL = {
    "type": "function",
    "function": {
        "name": "execute_bash",
        "description": "Run a command",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
}
MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": [{"type": "text", "text": "You are an agent."}]},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Look at this", "cache_control": {"type": "ephemeral"}},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        ],
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "execute_bash", "arguments": '{"command": "ls"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "name": "execute_bash", "content": "a.py\n"},
    {"role": "assistant", "content": "Done", "reasoning_content": "an extra key"},
]


def _create_body(**extra: Any) -> dict[str, Any]:
    """A body as ``Completions.create`` builds it: every parameter, unset ones omitted."""
    body: dict[str, Any] = {
        "messages": MESSAGES,
        "model": "gpt-4o",
        "audio": NOT_GIVEN,
        "frequency_penalty": NOT_GIVEN,
        "logit_bias": omit,
        "max_completion_tokens": 4096,
        "temperature": 0.0,
        "tools": [TOOL],
        "tool_choice": "auto",
        "stream": False,
        "stop": ["</execute>"],
        "extra_field_no_annotation": {"nested": [1, 2.5, True, None]},
    }
    body.update(extra)
    return body


def test_install_is_in_place_for_the_pinned_sdk() -> None:
    assert openai_body.install() is True
    from openai.resources.chat.completions import completions

    assert completions.maybe_transform is not maybe_transform  # the fast path fronts it


@pytest.mark.parametrize(
    "body",
    [
        _create_body(),
        _create_body(response_format={"type": "json_object"}, seed=7, user="u"),
        _create_body(stream=True, stream_options={"include_usage": True}),
        {"messages": [], "model": "m"},
    ],
    ids=["agent step", "extras", "streaming", "empty"],
)
def test_plain_bodies_come_out_as_the_sdk_makes_them(body: dict[str, Any]) -> None:
    for param in (
        params.CompletionCreateParamsNonStreaming,
        params.CompletionCreateParamsStreaming,
    ):
        fast = openai_body.plain_body(body, is_given)
        assert fast is not None
        assert fast == maybe_transform(body, param)


class _Model(pydantic.BaseModel):
    text: str = "x"


@pytest.mark.parametrize(
    "odd",
    [_Model(), datetime.date(2026, 1, 1), ("a", "b"), {1: "int key"}],
    ids=["pydantic model", "date", "tuple", "int key"],
)
def test_anything_but_plain_json_takes_the_sdk_path(odd: object) -> None:
    body = _create_body(metadata={"odd": odd})
    assert openai_body.plain_body(body, is_given) is None
    from openai.resources.chat.completions import completions

    assert completions.maybe_transform(
        body, params.CompletionCreateParamsNonStreaming
    ) == maybe_transform(body, params.CompletionCreateParamsNonStreaming)


class _Inner(TypedDict, total=False):
    card_id: Required[Annotated[str, PropertyInfo(alias="cardID")]]


class _Outer(TypedDict, total=False):
    items: list[_Inner | str]


class _Dated(TypedDict, total=False):
    when: Annotated[str, PropertyInfo(format="iso8601")]


def test_a_parameter_type_with_an_alias_needs_the_walk() -> None:
    assert openai_body.needs_transform(_Outer, PropertyInfo)
    assert openai_body.needs_transform(_Dated, PropertyInfo)
    assert not openai_body.needs_transform(params.CompletionCreateParamsNonStreaming, PropertyInfo)


def test_a_real_completion_sends_the_same_json(scripted_llm: ScriptedLLMServer) -> None:
    """Through LiteLLM and the OpenAI SDK to the scripted server: the messages arrive as
    the LLM wrapper formatted them."""
    scripted_llm.push(s.text("ok"))
    llm = LLM(scripted_llm.llm_config(model="openai/gpt-4o"), "a")
    messages = [
        {"role": "system", "content": "You are an agent."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "again"},
    ]
    llm.completion(messages=messages, tools=[TOOL])
    body = scripted_llm.last_request.body
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]
    assert body["messages"][-1]["content"] in ("again", [{"type": "text", "text": "again"}])
    assert body["tools"][0]["function"]["name"] == "execute_bash"
