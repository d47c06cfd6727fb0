"""What scripts and harnesses patch or feed the LLM: module-level names and plain-dict answers."""

from __future__ import annotations

import asyncio
from typing import Any
from unittest.mock import MagicMock, patch

import pytest

from openhands.core.config import LLMConfig
from openhands.llm.async_llm import AsyncLLM
from openhands.llm.llm import LLM

HI = [{"role": "user", "content": "hi"}]


def _config(**overrides: Any) -> LLMConfig:
    return LLMConfig(model="gpt-4o", api_key="k", num_retries=1, **overrides)


def _dict_answer(response_id: str, prompt: int, completion: int, cached: int, written: int) -> dict:
    return {
        "id": response_id,
        "choices": [{"message": {"content": "ok"}}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "prompt_tokens_details": {"cached_tokens": cached},
            "model_extra": {"cache_creation_input_tokens": written},
        },
    }


def test_plain_dict_answers_are_accounted_like_model_responses() -> None:
    with patch("openhands.llm.llm.litellm_completion") as fake:
        fake.side_effect = [_dict_answer("r1", 12, 3, 2, 5), {"choices": [{"message": {}}]}]
        llm = LLM(_config(), service_id="svc")
        assert llm.completion(messages=HI)["id"] == "r1"
        llm.completion(messages=HI)
    [usage] = llm.metrics.token_usages
    assert (usage.prompt_tokens, usage.completion_tokens) == (12, 3)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (2, 5)
    assert usage.response_id == "r1"
    assert [r.response_id for r in llm.metrics.response_latencies] == ["r1", ""]


def test_token_count_failure_is_logged_as_an_error_and_counts_zero() -> None:
    llm = LLM(_config(), service_id="svc")
    with (
        patch("openhands.llm.llm.litellm.token_counter", side_effect=RuntimeError("no table")),
        patch("openhands.llm.llm.logger") as log,
    ):
        assert llm.get_token_count(HI) == 0
    log.error.assert_called_once_with("Error getting token count for\n model gpt-4o\nno table")


def test_custom_tokenizer_comes_from_the_module_name() -> None:
    tokenizer = MagicMock()
    with (
        patch("openhands.llm.llm.create_pretrained_tokenizer", return_value=tokenizer) as create,
        patch("openhands.llm.llm.litellm.token_counter", return_value=7) as count,
    ):
        llm = LLM(_config(custom_tokenizer="org/tok"), service_id="svc")
        assert llm.get_token_count(HI) == 7
    create.assert_called_once_with("org/tok")
    assert count.call_args.kwargs["custom_tokenizer"] is tokenizer


def test_proxy_model_info_goes_through_the_modules_httpx() -> None:
    answer = MagicMock()
    answer.json.return_value = {
        "data": [{"model_name": "m", "model_info": {"max_input_tokens": 1234}}]
    }
    with patch("openhands.llm.llm.httpx.get", return_value=answer) as get:
        llm = LLM(
            LLMConfig(model="litellm_proxy/m", api_key="k", base_url="proxy.local"),
            service_id="svc",
        )
    assert get.call_args.args[0] == "http://proxy.local/v1/model/info"
    assert llm.config.max_input_tokens == 1234


@pytest.mark.parametrize("answer", [{"id": "a1", "choices": [{"message": {"content": "ok"}}]}])
def test_async_calls_go_through_the_module_level_acompletion(answer: dict) -> None:
    async def fake(**kwargs: Any) -> dict:
        seen.append(kwargs)
        return answer

    seen: list[dict[str, Any]] = []
    with patch("openhands.llm.async_llm.litellm_acompletion", side_effect=fake):
        llm = AsyncLLM(_config(), service_id="svc")
        result = asyncio.run(llm.async_completion(messages=HI))
    assert result["id"] == "a1"
    assert seen[0]["messages"] == HI and seen[0]["model"] == "gpt-4o"
