"""Call parameters per model (agent spec §7.1-7.2)."""

from __future__ import annotations

from typing import Any

import pytest

from openhands.core.config import LLMConfig
from openhands.llm.call_params import build_call_params, rewrite_openhands_model
from openhands.llm.llm import LLM
from openhands.llm.model_features import get_features
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

HI = [{"role": "user", "content": "hi"}]


def _params(**config: Any) -> dict[str, Any]:
    cfg = LLMConfig(**config)
    return build_call_params(cfg, get_features(cfg.model))


def test_plain_model_sends_sampling_and_connection_params() -> None:
    params = _params(model="openai/test-model", api_key="k", base_url="http://b", timeout=9, seed=3)
    assert params["temperature"] == 0.0
    assert params["top_p"] == 1.0
    assert "top_k" not in params
    assert params["api_key"] == "k"
    assert (params["base_url"], params["timeout"], params["seed"]) == ("http://b", 9, 3)
    assert params["drop_params"] is True
    assert params["max_retries"] == 0
    assert "max_completion_tokens" not in params
    assert "reasoning_effort" not in params


def test_top_k_and_max_output_tokens() -> None:
    params = _params(model="openai/test-model", top_k=40, max_output_tokens=1234)
    assert params["top_k"] == 40
    assert params["max_completion_tokens"] == 1234


def test_reasoning_model_sends_effort_without_sampling() -> None:
    params = _params(model="o3")
    assert params["reasoning_effort"] == "high"  # the config default for non-gemini models
    assert "temperature" not in params and "top_p" not in params


@pytest.mark.parametrize("effort", [None, "low", "none"])
def test_gemini_pro_low_effort_uses_thinking_budget(effort: str | None) -> None:
    params = _params(model="gemini/gemini-2.5-pro", reasoning_effort=effort)
    assert params["thinking"] == {"budget_tokens": 128}
    assert "reasoning_effort" not in params
    assert "temperature" not in params


def test_gemini_pro_high_effort() -> None:
    params = _params(model="gemini/gemini-2.5-pro", reasoning_effort="high")
    assert params["reasoning_effort"] == "high"
    assert "thinking" not in params


def test_claude_sonnet_4_5_sends_no_effort_and_no_sampling() -> None:
    params = _params(model="anthropic/claude-sonnet-4-5-20250929")
    assert "reasoning_effort" not in params
    assert "temperature" not in params and "top_p" not in params


def test_azure_uses_max_tokens() -> None:
    params = _params(model="azure/my-deployment", max_output_tokens=100)
    assert params["max_tokens"] == 100
    assert "max_completion_tokens" not in params
    assert params["api_version"] == "2024-12-01-preview"


def test_claude_opus_4_1_disables_thinking_and_top_p() -> None:
    params = _params(model="anthropic/claude-opus-4-1-20250805")
    assert params["thinking"] == {"type": "disabled"}
    assert params["temperature"] == 0.0
    assert "top_p" not in params


def test_huggingface_top_p() -> None:
    assert _params(model="huggingface/some/model")["top_p"] == 0.9
    assert _params(model="huggingface/some/model", top_p=0.5)["top_p"] == 0.5


def test_safety_settings_only_for_mistral_and_gemini() -> None:
    settings = [{"category": "c", "threshold": "t"}]
    assert _params(model="mistral/large", safety_settings=settings)["safety_settings"] == settings
    assert "safety_settings" not in _params(model="openai/x", safety_settings=settings)


def test_aws_credentials_are_passed() -> None:
    params = _params(
        model="bedrock/x", aws_access_key_id="id", aws_secret_access_key="sec", aws_region_name="r"
    )
    assert (params["aws_access_key_id"], params["aws_secret_access_key"]) == ("id", "sec")
    assert params["aws_region_name"] == "r"


def test_openhands_models_go_through_the_proxy() -> None:
    cfg = LLMConfig(model="openhands/claude-sonnet-4-20250514")
    rewrite_openhands_model(cfg)
    assert cfg.model == "litellm_proxy/claude-sonnet-4-20250514"
    assert cfg.base_url == "https://llm-proxy.app.all-hands.dev/"


def test_output_limit_from_model_table_and_long_output_models(
    scripted_llm: ScriptedLLMServer,
) -> None:
    assert (
        LLM(scripted_llm.llm_config(model="openai/gpt-4o"), "a").config.max_output_tokens == 16384
    )
    claude = LLM(scripted_llm.llm_config(model="anthropic/claude-sonnet-4-20250514"), "a")
    assert claude.config.max_output_tokens == 64000
    assert LLM(scripted_llm.llm_config(), "a").config.max_output_tokens is None


def test_reasoning_request_over_http(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("ok"))
    LLM(scripted_llm.llm_config(model="openai/o3"), "a").completion(messages=HI)
    body = scripted_llm.last_request.body
    assert body["reasoning_effort"] == "high"
    assert "temperature" not in body and "top_p" not in body
    assert body["max_completion_tokens"] == 100000


def test_azure_request_over_http(scripted_llm: ScriptedLLMServer) -> None:
    scripted_llm.push(s.text("ok"))
    config = scripted_llm.llm_config(model="azure/my-deployment", max_output_tokens=77)
    config.base_url = scripted_llm.url
    LLM(config, "a").completion(messages=HI)
    request = scripted_llm.last_request
    assert request.path == "/openai/deployments/my-deployment/chat/completions"
    assert request.body["max_tokens"] == 77


def test_async_paths_keep_the_sampling_controls() -> None:
    params = build_call_params(LLMConfig(model="o3"), get_features("o3"), adapt_sampling=False)
    assert params["reasoning_effort"] == "high"
    assert (params["temperature"], params["top_p"]) == (0.0, 1.0)
    gemini = LLMConfig(model="gemini/gemini-2.5-pro", reasoning_effort="low")
    params = build_call_params(gemini, get_features(gemini.model), adapt_sampling=False)
    assert "thinking" not in params
    assert params["reasoning_effort"] == "low"


async def test_async_reasoning_request_over_http(scripted_llm: ScriptedLLMServer) -> None:
    from openhands.llm.async_llm import AsyncLLM

    config = scripted_llm.llm_config(
        model="openai/gemini-2.5-pro", temperature=0.7, top_p=0.9, reasoning_effort="low"
    )
    scripted_llm.push(s.text("ok"), s.text("ok"))
    LLM(config, "sync").completion(messages=HI)
    sync_body = scripted_llm.last_request.body
    await AsyncLLM(config, "async").async_completion(messages=HI)
    async_body = scripted_llm.last_request.body
    # completion() drops the sampling controls of a reasoning model; the async path sends
    # them as configured, and no thinking budget.
    assert "temperature" not in sync_body and "top_p" not in sync_body
    assert (async_body["temperature"], async_body["top_p"]) == (0.7, 0.9)
    assert "thinking" not in async_body
