"""The reference's public ``openhands.llm`` API (python-api.md §3; checklist items 7, 8, 9):
``LLM`` (patchable ``litellm_completion``, ``completion`` property, ``init_model_info``),
``AsyncLLM``, ``StreamingLLM``, ``DebugMixin`` and the ``fn_call_converter`` names.
Calls go over real HTTP to the scripted LLM server."""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import litellm
import pytest

import openhands.llm
from openhands.core.config import LLMConfig
from openhands.core.exceptions import (
    FunctionCallConversionError,
    LLMNoResponseError,
    UserCancelledError,
)
from openhands.core.logger import llm_prompt_logger, llm_response_logger
from openhands.core.message import ImageContent, Message, TextContent
from openhands.llm import AsyncLLM, StreamingLLM, fn_call_prompt, fn_call_tags
from openhands.llm import fn_call_converter as fc
from openhands.llm import llm as llm_module
from openhands.llm.debug_mixin import MESSAGE_SEPARATOR, DebugMixin
from openhands.llm.llm import LLM
from openhands.llm.metrics import Metrics
from openhands.llm.model_features import normalize_model_name
from openhands.llm.retry_mixin import RetryMixin
from openhands.utils import prompt as prompt_utils
from openhands.utils import shutdown_listener
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer
from tests.unit.llm.tools import DEFAULT_TOOLS, FINISH, NO_PARAMETERS, TASK_TRACKER, THINK

REPO_ROOT = Path(__file__).resolve().parents[3]
HI = [{"role": "user", "content": "hi"}]


@pytest.fixture
def shutdown() -> Iterator[None]:
    """Lets a test raise the process-wide shutdown flag; it is cleared afterwards."""
    yield
    shutdown_listener.reset()


@pytest.fixture
def llm_logs() -> Iterator[list[tuple[str, str]]]:
    """Turns the prompt/response loggers on and collects (logger name, message)."""
    records: list[tuple[str, str]] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append((record.name, record.getMessage()))

    handler = Collect(logging.DEBUG)
    saved = [(lg, lg.disabled) for lg in (llm_prompt_logger, llm_response_logger)]
    for lg, _ in saved:
        lg.disabled = False
        lg.addHandler(handler)
    try:
        yield records
    finally:
        for lg, disabled in saved:
            lg.disabled = disabled
            lg.removeHandler(handler)


# --- package (checklist 7) ----------------------------------------------------------------


def test_package_exports_the_three_classes_lazily() -> None:
    assert openhands.llm.__all__ == ["LLM", "AsyncLLM", "StreamingLLM"]
    assert openhands.llm.LLM is LLM
    assert issubclass(AsyncLLM, LLM) and issubclass(StreamingLLM, AsyncLLM)
    from openhands.llm.async_llm import AsyncLLM as async_path
    from openhands.llm.streaming_llm import StreamingLLM as streaming_path

    assert async_path is AsyncLLM and streaming_path is StreamingLLM


def test_importing_the_package_does_not_load_litellm(tmp_path: Path) -> None:
    code = (
        "import sys, openhands.llm; "
        "print('litellm' in sys.modules, 'openhands.llm.llm' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


async def test_async_completion_is_awaitable(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("async hello"))
    llm = AsyncLLM(scripted_llm.llm_config(), "svc")
    pending = llm.async_completion(messages=HI)
    assert inspect.isawaitable(pending)
    response = await pending
    assert response.choices[0].message.content == "async hello"
    assert scripted_llm.last_request.messages == HI
    assert llm.metrics.token_usages[0].response_id == response.id


# --- normalize_model_name (checklist 8) -----------------------------------------------------


def test_normalize_model_name() -> None:
    assert normalize_model_name(None) == ""  # type: ignore[arg-type]
    assert normalize_model_name("openrouter/Anthropic/Claude-3:latest") == "claude-3"
    assert normalize_model_name("ollama/qwen3-coder-GGUF") == "qwen3-coder"
    assert normalize_model_name("  GPT-4o ") == "gpt-4o"


# --- LLM: construction, litellm_completion, completion property ----------------------------


def test_constructor_signature() -> None:
    params = inspect.signature(LLM.__init__).parameters
    assert list(params) == ["self", "config", "service_id", "metrics", "retry_listener"]
    assert params["metrics"].default is None and params["retry_listener"].default is None
    assert LLM.__mro__[1:3] == (RetryMixin, DebugMixin)


def test_litellm_completion_is_litellm_completion_by_default() -> None:
    assert llm_module.litellm_completion is litellm.completion


def test_litellm_completion_is_bound_at_construction(
    scripted_llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = LLM(scripted_llm.llm_config(), "before")
    seen: list[dict[str, Any]] = []

    def fake_completion(**kwargs: Any) -> Any:
        seen.append(kwargs)
        return litellm.completion(**kwargs)

    monkeypatch.setattr("openhands.llm.llm.litellm_completion", fake_completion)
    patched = LLM(scripted_llm.llm_config(), "patched")
    scripted_llm.push(s.text("one"), s.text("two"))
    assert patched.completion(messages=HI).choices[0].message.content == "one"
    assert len(seen) == 1 and seen[0]["messages"] == HI and seen[0]["model"] == "openai/test-model"
    # An LLM created before the patch keeps the function it was built with.
    assert before.completion(messages=HI).choices[0].message.content == "two"
    assert len(seen) == 1


def test_completion_is_a_property_returning_a_retrying_callable(
    scripted_llm: ScriptedLLMServer,
) -> None:
    assert isinstance(inspect.getattr_static(LLM, "completion"), property)
    attempts: list[tuple[int, int]] = []
    llm = LLM(
        scripted_llm.llm_config(num_retries=3),
        "svc",
        retry_listener=lambda attempt, total: attempts.append((attempt, total)),
    )
    assert callable(llm.completion) and llm.completion is llm.completion
    scripted_llm.push(s.rate_limit_error(), s.server_error(), s.text("third time"))
    response = llm.completion(HI)  # messages may come first, positionally
    assert response.choices[0].message.content == "third time"
    assert attempts == [(1, 3), (2, 3)]
    assert len(scripted_llm.completion_requests) == 3


def test_completion_gives_up_after_num_retries(scripted_llm: ScriptedLLMServer) -> None:
    llm = LLM(scripted_llm.llm_config(num_retries=2), "svc")
    scripted_llm.push(s.no_choices(), s.no_choices())
    with pytest.raises(LLMNoResponseError) as caught:
        llm.completion(messages=HI)
    assert caught.value.retry_attempt == 2  # type: ignore[attr-defined]
    first, second = scripted_llm.completion_requests
    assert first.body["temperature"] == 0.0 and second.body["temperature"] == 1.0


def test_router_completion_still_routes(scripted_llm: ScriptedLLMServer) -> None:
    from openhands.core.config import OpenHandsConfig
    from openhands.llm.llm_registry import LLMRegistry
    from openhands.llm.router.multimodal import MultimodalRouter

    config = OpenHandsConfig()
    config.set_llm_config(scripted_llm.llm_config())
    secondary = scripted_llm.llm_config(model="openai/secondary-model", for_routing=True)
    agent_config = config.get_agent_config()
    agent_config.model_routing.router_name = "multimodal_router"
    agent_config.model_routing.llms_for_routing = {"secondary_model": secondary}
    router = MultimodalRouter(agent_config, LLMRegistry(config))
    assert isinstance(inspect.getattr_static(MultimodalRouter, "completion"), property)
    scripted_llm.push(s.text("from the secondary"))
    assert router.completion(messages=HI).choices[0].message.content == "from the secondary"
    assert scripted_llm.last_request.body["model"] == "secondary-model"


# --- LLM: init_model_info -----------------------------------------------------------------


def test_model_info_from_a_litellm_proxy(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.model_info = [
        {"model_name": "other", "model_info": {"max_input_tokens": 1}},
        {"model_name": "my-model", "model_info": {"max_input_tokens": 4321, "max_tokens": 765}},
    ]
    config = scripted_llm.llm_config(model="litellm_proxy/my-model", base_url=scripted_llm.url)
    llm = LLM(config, "svc")
    (request,) = [r for r in scripted_llm.requests if r.path.endswith("/model/info")]
    assert request.method == "GET" and request.path == "/v1/model/info"
    assert request.headers["Authorization"] == "Bearer x"
    assert llm.model_info == {"max_input_tokens": 4321, "max_tokens": 765}
    assert llm.config.max_input_tokens == 4321
    assert llm.config.max_output_tokens == 765
    # runs once per instance
    llm.init_model_info()
    assert len([r for r in scripted_llm.requests if r.path.endswith("/model/info")]) == 1


def test_configured_limits_win_over_model_info(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.model_info = [
        {"model_name": "my-model", "model_info": {"max_input_tokens": 4321, "max_tokens": 765}}
    ]
    config = scripted_llm.llm_config(
        model="litellm_proxy/my-model",
        base_url=scripted_llm.url,
        max_input_tokens=100,
        max_output_tokens=50,
    )
    llm = LLM(config, "svc")
    assert (llm.config.max_input_tokens, llm.config.max_output_tokens) == (100, 50)


def test_an_unreachable_or_silent_proxy_falls_back_to_the_model_name(
    scripted_llm: ScriptedLLMServer,
) -> None:
    # The scripted server answers 404 while it has no model info.
    config = scripted_llm.llm_config(model="litellm_proxy/gpt-4o", base_url=scripted_llm.url)
    llm = LLM(config, "svc")
    assert llm.model_info is not None
    assert llm.config.max_input_tokens == litellm.get_model_info("gpt-4o")["max_input_tokens"]


def test_openrouter_model_info_is_looked_up_by_full_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []

    def fake_get_model_info(model: str) -> dict[str, Any]:
        asked.append(model)
        return {"max_input_tokens": 1000, "max_output_tokens": 200}

    monkeypatch.setattr(litellm, "get_model_info", fake_get_model_info)
    llm = LLM(LLMConfig(model="openrouter/acme/model-x"), "svc")
    assert asked == ["openrouter/acme/model-x"]
    assert (llm.config.max_input_tokens, llm.config.max_output_tokens) == (1000, 200)


def test_model_info_by_name_without_tag() -> None:
    llm = LLM(LLMConfig(model="gpt-4o:latest"), "svc")
    assert llm.config.max_input_tokens == litellm.get_model_info("gpt-4o")["max_input_tokens"]
    assert llm.config.max_output_tokens == litellm.get_model_info("gpt-4o")["max_output_tokens"]


def test_unknown_model_leaves_the_limits_unset() -> None:
    llm = LLM(LLMConfig(model="openai/no-such-model-anywhere"), "svc")
    assert llm.model_info is None
    assert llm.config.max_input_tokens is None and llm.config.max_output_tokens is None


# --- LLM: the other public methods --------------------------------------------------------


def test_capabilities_format_count_reset_str(scripted_llm: ScriptedLLMServer) -> None:
    claude = LLM(LLMConfig(model="anthropic/claude-sonnet-4-20250514"), "agent")
    assert claude.is_function_calling_active() and claude.is_caching_prompt_active()
    assert claude.vision_is_active()
    plain = LLM(scripted_llm.llm_config(native_tool_calling=False, disable_vision=True), "x")
    assert not plain.is_function_calling_active() and not plain.vision_is_active()

    formatted = claude.format_messages_for_llm(
        Message(role="user", content=[TextContent(text="a")])
    )
    # caching/vision/function calling on: the list form
    assert formatted[0]["role"] == "user"
    assert formatted[0]["content"][0]["text"] == "a"
    assert claude.get_token_count([{"role": "user", "content": "hello world " * 20}]) > 20

    old = claude.metrics
    old.add_cost(1.0)
    claude.reset()
    assert claude.metrics is not old and claude.metrics.accumulated_cost == 0
    assert "claude-sonnet-4-20250514" in str(claude) and "agent" in str(claude)


def test_metrics_passed_in_are_used(scripted_llm: ScriptedLLMServer) -> None:
    metrics = Metrics(model_name="shared")
    llm = LLM(scripted_llm.llm_config(), "svc", metrics=metrics)
    scripted_llm.push(s.text("ok"))
    llm.completion(messages=HI)
    assert llm.metrics is metrics and len(metrics.response_latencies) == 1


# --- DebugMixin ---------------------------------------------------------------------------


class _Debug(DebugMixin):
    def __init__(self, vision: bool) -> None:
        self.vision = vision

    def vision_is_active(self) -> bool:
        return self.vision


def test_message_separator() -> None:
    assert MESSAGE_SEPARATOR == "\n\n----------\n\n"
    with pytest.raises(NotImplementedError):
        DebugMixin().vision_is_active()


def test_log_prompt_joins_messages(llm_logs: list[tuple[str, str]]) -> None:
    image = {"type": "image_url", "image_url": {"url": "http://img/1.png"}}
    messages: list[Any] = [
        {"role": "system", "content": "sys"},
        {"role": "assistant", "content": None},
        {"role": "user", "content": [{"type": "text", "text": "look"}, image]},
    ]
    _Debug(vision=False).log_prompt(messages)
    _Debug(vision=True).log_prompt(messages)
    _Debug(vision=True).log_prompt(
        Message(role="user", content=[TextContent(text="t"), ImageContent(image_urls=["u"])])
    )
    assert llm_logs == [
        ("prompt", "sys" + MESSAGE_SEPARATOR + "look"),
        ("prompt", "sys" + MESSAGE_SEPARATOR + "look\nhttp://img/1.png"),
        ("prompt", "t\nu"),
    ]


def test_log_response_lists_function_calls(llm_logs: list[tuple[str, str]]) -> None:
    response = {
        "choices": [
            {
                "message": {
                    "content": "Running it.",
                    "tool_calls": [
                        {"function": {"name": "execute_bash", "arguments": '{"command": "ls"}'}}
                    ],
                }
            }
        ]
    }
    _Debug(vision=False).log_response(response)
    assert llm_logs == [("response", 'Running it.\nFunction call: execute_bash({"command": "ls"})')]


def test_nothing_is_logged_while_the_loggers_are_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llm_prompt_logger, "disabled", True)
    monkeypatch.setattr(llm_response_logger, "disabled", True)

    class Exploding(_Debug):
        def _message_text(self, message: Any) -> str | None:
            raise AssertionError("formatted although the logger is off")

    Exploding(vision=False).log_prompt(HI)
    Exploding(vision=False).log_response({"choices": []})


def test_completion_logs_prompt_and_response(
    scripted_llm: ScriptedLLMServer, llm_logs: list[tuple[str, str]]
) -> None:
    scripted_llm.push(s.tool_call("think", {"thought": "plan"}, content="Thinking."))
    llm = LLM(scripted_llm.llm_config(native_tool_calling=True), "svc")
    llm.completion(messages=[{"role": "system", "content": "be brief"}, *HI], tools=[THINK])
    assert llm_logs == [
        ("prompt", "be brief" + MESSAGE_SEPARATOR + "hi"),
        ("response", 'Thinking.\nFunction call: think({"thought": "plan"})'),
    ]


# --- AsyncLLM -----------------------------------------------------------------------------


async def test_async_completion_retries_like_completion(scripted_llm: ScriptedLLMServer) -> None:
    attempts: list[tuple[int, int]] = []
    llm = AsyncLLM(
        scripted_llm.llm_config(num_retries=3),
        "svc",
        retry_listener=lambda attempt, total: attempts.append((attempt, total)),
    )
    scripted_llm.push(s.service_unavailable(), s.no_choices(), s.text("finally"))
    response = await llm.async_completion(messages=HI)
    assert response.choices[0].message.content == "finally"
    assert attempts == [(1, 3), (2, 3)]
    temperatures = [r.body["temperature"] for r in scripted_llm.completion_requests]
    assert temperatures == [0.0, 0.0, 1.0]


async def test_async_completion_errors_are_litellms(scripted_llm: ScriptedLLMServer) -> None:
    llm = AsyncLLM(scripted_llm.llm_config(num_retries=2), "svc")
    scripted_llm.push(s.auth_error())
    with pytest.raises(litellm.AuthenticationError):
        await llm.async_completion(messages=HI)
    scripted_llm.push(s.no_choices(), s.no_choices())
    with pytest.raises(LLMNoResponseError):
        await llm.async_completion(messages=HI)
    with pytest.raises(ValueError, match="messages list is empty"):
        await llm.async_completion(messages=[])


async def test_async_completion_mocks_tools_for_models_without_function_calling(
    scripted_llm: ScriptedLLMServer,
) -> None:
    call_text = "I will finish.\n<function=finish>\n<parameter=message>done</parameter>\n"
    scripted_llm.push(s.text(call_text))
    llm = AsyncLLM(scripted_llm.llm_config(native_tool_calling=False), "svc")
    response = await llm.async_completion(messages=HI, tools=[FINISH])
    message = response.choices[0].message
    assert message.content == "I will finish."
    assert message.tool_calls[0].function.name == "finish"
    assert json.loads(message.tool_calls[0].function.arguments) == {"message": "done"}
    body = scripted_llm.last_request.body
    assert "tools" not in body and body["stop"] == ["</function"]


async def test_async_completion_refuses_to_start_during_shutdown(
    scripted_llm: ScriptedLLMServer, shutdown: None
) -> None:
    llm = AsyncLLM(scripted_llm.llm_config(), "svc")
    shutdown_listener.request_shutdown()
    with pytest.raises(UserCancelledError):
        await llm.async_completion(messages=HI)
    assert scripted_llm.completion_requests == []


async def test_async_completion_is_cancelled_when_shutdown_begins(
    scripted_llm: ScriptedLLMServer, shutdown: None
) -> None:
    release = threading.Event()

    def shut_down_then_hang(request: dict[str, Any]) -> s.ScriptItem:
        shutdown_listener.request_shutdown()
        release.wait(timeout=30)
        return s.text("too late")

    scripted_llm.push(shut_down_then_hang)
    llm = AsyncLLM(scripted_llm.llm_config(), "svc")
    try:
        with pytest.raises(UserCancelledError):
            await llm.async_completion(messages=HI)
    finally:
        release.set()
    assert llm.metrics.response_latencies == []


# --- StreamingLLM -------------------------------------------------------------------------


async def _collect(llm: StreamingLLM, **kwargs: Any) -> list[Any]:
    return [chunk async for chunk in llm.async_streaming_completion(**kwargs)]


async def test_streaming_yields_litellm_chunks(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("one two three"))
    llm = StreamingLLM(scripted_llm.llm_config(), "svc")
    assert inspect.isasyncgen(llm.async_streaming_completion(messages=HI))
    chunks = await _collect(llm, messages=HI)
    assert scripted_llm.last_request.body["stream"] is True
    pieces = [c.choices[0].delta.content for c in chunks if c.choices]
    assert len(pieces) >= 3
    assert "".join(p or "" for p in pieces) == "one two three"
    assert chunks[-1].choices[0].finish_reason == "stop"
    # metrics are recorded once the stream is over
    assert len(llm.metrics.response_latencies) == 1
    assert llm.metrics.response_latencies[0].response_id == chunks[0].id
    assert llm.metrics.token_usages[0].completion_tokens > 0


class _PlainDictStream(StreamingLLM):
    """An extension that hands on the provider's chunks as plain dicts without ``model``
    (the shape some proxies stream), through the documented ``_call_acompletion`` hook."""

    async def _call_acompletion(self, **kwargs: Any) -> Any:
        stream = await super()._call_acompletion(**kwargs)

        async def plain() -> Any:
            async for chunk in stream:
                data = chunk.model_dump()
                data.pop("model", None)
                yield data

        return plain()


async def test_streaming_of_chunks_litellm_cannot_assemble(
    scripted_llm: ScriptedLLMServer,
) -> None:
    scripted_llm.push(s.text("one two three"))
    llm = _PlainDictStream(scripted_llm.llm_config(), "svc")
    chunks = await _collect(llm, messages=HI)
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "one two three"
    # No usage to read from such chunks, but the call is still counted.
    assert len(llm.metrics.response_latencies) == 1
    assert llm.metrics.token_usages == []


async def test_streaming_tool_calls_and_retries(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.rate_limit_error(), s.tool_call("think", {"thought": "t"}, content=""))
    llm = StreamingLLM(scripted_llm.llm_config(native_tool_calling=True), "svc")
    chunks = await _collect(llm, messages=HI, tools=[THINK])
    calls = [
        c.choices[0].delta.tool_calls for c in chunks if c.choices and c.choices[0].delta.tool_calls
    ]
    assert calls[0][0].function.name == "think"
    assert json.loads(calls[0][0].function.arguments) == {"thought": "t"}
    assert scripted_llm.last_request.tools == [THINK]
    assert len(scripted_llm.completion_requests) == 2


async def test_streaming_with_mocked_tools_is_refused(scripted_llm: ScriptedLLMServer) -> None:
    llm = StreamingLLM(scripted_llm.llm_config(native_tool_calling=False), "svc")
    with pytest.raises(ValueError, match="mock function calling"):
        await _collect(llm, messages=HI, tools=[THINK])
    assert scripted_llm.completion_requests == []


async def test_streaming_stops_when_shutdown_begins(
    scripted_llm: ScriptedLLMServer, shutdown: None
) -> None:
    scripted_llm.push(s.text("several words in this reply"))
    llm = StreamingLLM(scripted_llm.llm_config(), "svc")
    received: list[Any] = []
    with pytest.raises(UserCancelledError):
        async for chunk in llm.async_streaming_completion(messages=HI):
            received.append(chunk)
            shutdown_listener.request_shutdown()
    assert len(received) == 1


# --- fn_call_converter (checklist 9 and the constants) --------------------------------------


def _call(arguments: Any, **overrides: Any) -> dict[str, Any]:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "str_replace_editor", "arguments": json.dumps(arguments)},
    }
    call.update(overrides)
    return call


def test_convert_tool_call_to_string() -> None:
    rendered = fc.convert_tool_call_to_string(
        _call({"command": "create", "file_text": "a\nb", "view_range": [1, 2], "n": 3})
    )
    assert rendered == (
        "<function=str_replace_editor>\n"
        "<parameter=command>create</parameter>\n"
        "<parameter=file_text>\na\nb\n</parameter>\n"
        "<parameter=view_range>[1, 2]</parameter>\n"
        "<parameter=n>3</parameter>\n"
        "</function>"
    )
    assert fc.convert_tool_call_to_string(_call({})) == "<function=str_replace_editor>\n</function>"


@pytest.mark.parametrize("missing", ["id", "type", "function"])
def test_convert_tool_call_to_string_needs_id_type_and_function(missing: str) -> None:
    call = _call({"command": "view"})
    del call[missing]
    with pytest.raises(FunctionCallConversionError):
        fc.convert_tool_call_to_string(call)


def test_convert_tool_call_to_string_rejects_bad_calls() -> None:
    with pytest.raises(FunctionCallConversionError):
        fc.convert_tool_call_to_string(_call({}, type="not_function"))
    bad_json = _call({})
    bad_json["function"]["arguments"] = "{not json"
    with pytest.raises(FunctionCallConversionError):
        fc.convert_tool_call_to_string(bad_json)


def test_tools_description_has_the_exact_text() -> None:
    assert fc.convert_tools_to_description is fn_call_prompt.describe_functions
    assert fc.convert_tools_to_description([TASK_TRACKER, NO_PARAMETERS]) == (
        "---- BEGIN FUNCTION #1: task_tracker ----\n"
        "Description: View or replace the task list.\n"
        "Parameters:\n"
        "  (1) command (string, required): What to do.\n"
        "Allowed values: [`view`, `plan`]\n"
        "  (2) task_list (array, optional): The full list.\n"
        "---- END FUNCTION #1 ----\n"
        "\n"
        f"---- BEGIN FUNCTION #2: {NO_PARAMETERS['function']['name']} ----\n"
        f"Description: {NO_PARAMETERS['function']['description']}\n"
        "No parameters are required for this function.\n"
        "---- END FUNCTION #2 ----\n"
    )


def test_prompt_constants() -> None:
    assert fc.STOP_WORDS == ["</function"]
    assert fc.SYSTEM_PROMPT_SUFFIX_TEMPLATE.format(
        description=fc.convert_tools_to_description([THINK])
    ) == fn_call_prompt.system_suffix([THINK])
    assert fc.IN_CONTEXT_LEARNING_EXAMPLE_PREFIX is fc.get_example_for_tools
    assert fc.get_example_for_tools is fn_call_prompt.in_context_example
    assert fc.IN_CONTEXT_LEARNING_EXAMPLE_SUFFIX == fn_call_prompt.EXAMPLE_SUFFIX
    assert "NEW TASK DESCRIPTION" in fc.IN_CONTEXT_LEARNING_EXAMPLE_SUFFIX
    assert fc.refine_prompt is prompt_utils.refine_prompt


def test_tool_examples_are_the_snippets_of_the_example() -> None:
    assert set(fc.TOOL_EXAMPLES) == {
        "execute_bash",
        "str_replace_editor",
        "edit_file",
        "browser",
        "finish",
    }
    assert "create_file" in fc.TOOL_EXAMPLES["str_replace_editor"]
    no_risk_tools = [
        {"type": "function", "function": {"name": name, "description": "d"}}
        for name in ("execute_bash", "str_replace_editor", "browser", "finish")
    ]
    example = fc.get_example_for_tools(no_risk_tools)
    for tool in ("execute_bash", "str_replace_editor", "browser", "finish"):
        for snippet in fc.TOOL_EXAMPLES[tool].values():
            assert snippet in example
    for snippet in fc.TOOL_EXAMPLES["edit_file"].values():
        assert snippet not in example
    assert fc.get_example_for_tools([THINK]) == ""


def test_regex_patterns() -> None:
    import re

    text = "<function=finish>\n<parameter=message>bye\nnow</parameter>\n</function>"
    match = re.search(fc.FN_REGEX_PATTERN, text, re.DOTALL)
    assert match is not None and match.group(1) == "finish"
    params = re.findall(fc.FN_PARAM_REGEX_PATTERN, match.group(2), re.DOTALL)
    assert params == [("message", "bye\nnow")]
    result = re.match(fc.TOOL_RESULT_REGEX_PATTERN, "EXECUTION RESULT of [ls]:\na\nb", re.DOTALL)
    assert result is not None and result.groups() == ("ls", "a\nb")
    assert fn_call_tags.FUNCTION_REGEX.pattern == fc.FN_REGEX_PATTERN


def test_refine_prompt_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    assert fc.refine_prompt("use bash here") == "use bash here"
    monkeypatch.setattr(sys, "platform", "win32")
    assert fc.refine_prompt("use bash here") == "use powershell here"


def _tc(call_id: str, name: str = "think") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def test_multiple_tool_calls_become_single_call_messages() -> None:
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "Two things.", "tool_calls": [_tc("a"), _tc("b")]},
        {"role": "tool", "tool_call_id": "a", "name": "think", "content": "ra"},
        {"role": "tool", "tool_call_id": "b", "name": "think", "content": "rb"},
        {"role": "assistant", "content": "one", "tool_calls": [_tc("c")]},
        {"role": "tool", "tool_call_id": "c", "name": "think", "content": "rc"},
    ]
    out = fc.convert_from_multiple_tool_calls_to_single_tool_call_messages(messages)
    assert out == [
        messages[0],
        {"role": "assistant", "content": "Two things.", "tool_calls": [_tc("a")]},
        messages[2],
        {"role": "assistant", "content": "", "tool_calls": [_tc("b")]},
        messages[3],
        messages[4],
        messages[5],
    ]
    # the result can go through mock function calling, which needs one call per message
    fc.convert_fncall_messages_to_non_fncall_messages(out, DEFAULT_TOOLS)


def test_multiple_tool_calls_without_results() -> None:
    messages = [
        {"role": "assistant", "content": "x", "tool_calls": [_tc("a"), _tc("b")]},
        {"role": "tool", "tool_call_id": "a", "name": "think", "content": "ra"},
    ]
    with pytest.raises(FunctionCallConversionError):
        fc.convert_from_multiple_tool_calls_to_single_tool_call_messages(messages)
    out = fc.convert_from_multiple_tool_calls_to_single_tool_call_messages(
        messages, ignore_final_tool_result=True
    )
    assert [m["role"] for m in out] == ["assistant", "tool"]
    with pytest.raises(FunctionCallConversionError):
        fc.convert_from_multiple_tool_calls_to_single_tool_call_messages(
            [messages[0], {"role": "user", "content": "interrupting"}]
        )


def test_mock_function_calling_fallback_still_round_trips(
    scripted_llm: ScriptedLLMServer,
) -> None:
    """The prompt-based fallback with the renamed pieces: tools described in the system
    prompt, the reply parsed back into a native call."""
    scripted_llm.push(s.text("<function=think>\n<parameter=thought>hm</parameter>\n</function>"))
    llm = LLM(scripted_llm.llm_config(native_tool_calling=False), "svc")
    response = llm.completion(
        messages=[{"role": "system", "content": "sys"}, *HI], tools=[THINK, FINISH]
    )
    system = scripted_llm.last_request.messages[0]["content"]
    assert fc.convert_tools_to_description([THINK, FINISH]) in system
    assert response.choices[0].message.tool_calls[0].function.name == "think"
    assert response.choices[0].message.tool_calls[0].id == "toolu_01"


def test_async_and_streaming_run_from_sync_code(scripted_llm: ScriptedLLMServer) -> None:
    """Both work under a fresh event loop (asyncio.run), as scripts use them."""
    scripted_llm.push(s.text("a"), s.text("b c"))
    llm = StreamingLLM(scripted_llm.llm_config(), "svc")
    assert asyncio.run(llm.async_completion(messages=HI)).choices[0].message.content == "a"
    chunks = asyncio.run(_collect(llm, messages=HI))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "b c"
