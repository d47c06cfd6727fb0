"""The keyword arguments every ``litellm.completion`` call of one LLM starts from."""

from __future__ import annotations

from typing import Any

from openhands.core.config import LLMConfig
from openhands.llm.model_features import ModelFeatures

OPENHANDS_PROXY_PREFIX = "openhands/"
OPENHANDS_PROXY_URL = "https://llm-proxy.app.all-hands.dev/"


def rewrite_openhands_model(config: LLMConfig) -> None:
    """``openhands/X`` is served by the OpenHands LiteLLM proxy: call it as ``litellm_proxy/X``."""
    if config.model.startswith(OPENHANDS_PROXY_PREFIX):
        config.model = "litellm_proxy/" + config.model.removeprefix(OPENHANDS_PROXY_PREFIX)
        config.base_url = OPENHANDS_PROXY_URL


def _secret(value: Any) -> str | None:
    return None if value is None else value.get_secret_value()


def _sampling_params(config: LLMConfig, features: ModelFeatures) -> dict[str, Any]:
    model = config.model
    params: dict[str, Any] = {"temperature": config.temperature}
    if config.top_k is not None:
        params["top_k"] = config.top_k
    if config.top_p is not None:
        params["top_p"] = config.top_p

    if features.supports_reasoning_effort:
        if "gemini-2.5-pro" in model and config.reasoning_effort in (None, "low", "none"):
            params["thinking"] = {"budget_tokens": 128}
        elif "claude-sonnet-4-5" not in model:
            params["reasoning_effort"] = config.reasoning_effort
        # Reasoning models reject sampling controls.
        params.pop("temperature", None)
        params.pop("top_p", None)

    if "claude-opus-4-1" in model:
        params["thinking"] = {"type": "disabled"}
        if "temperature" in params:
            params.pop("top_p", None)

    if "huggingface" in model and params.get("top_p") == 1:
        params["top_p"] = 0.9
    return params


def _unadjusted_sampling_params(config: LLMConfig, features: ModelFeatures) -> dict[str, Any]:
    """The sampling controls as configured, plus the reasoning effort the model supports.

    This is what 0.59's async and streaming calls send: nothing is removed for reasoning
    models (``drop_params`` lets LiteLLM drop what a provider rejects) and no Gemini
    thinking budget is set.
    """
    params: dict[str, Any] = {"temperature": config.temperature}
    if config.top_k is not None:
        params["top_k"] = config.top_k
    if config.top_p is not None:
        params["top_p"] = config.top_p
    if features.supports_reasoning_effort and "claude-sonnet-4-5" not in config.model:
        params["reasoning_effort"] = config.reasoning_effort
    return params


def build_call_params(
    config: LLMConfig, features: ModelFeatures, *, adapt_sampling: bool = True
) -> dict[str, Any]:
    """``adapt_sampling=False`` gives the async paths' parameters (see above)."""
    params: dict[str, Any] = {
        "model": config.model,
        "api_key": _secret(config.api_key),
        "base_url": config.base_url,
        "api_version": config.api_version,
        "custom_llm_provider": config.custom_llm_provider,
        "timeout": config.timeout,
        "drop_params": config.drop_params,
        "seed": config.seed,
        # Retries are ours (tenacity, config.num_retries attempts in total); switch off the
        # provider SDK's own hidden retries so one attempt is one HTTP request.
        "max_retries": 0,
    }
    if adapt_sampling:
        params.update(_sampling_params(config, features))
    else:
        params.update(_unadjusted_sampling_params(config, features))

    token_key = "max_tokens" if config.model.startswith("azure") else "max_completion_tokens"
    if config.max_output_tokens is not None:
        params[token_key] = config.max_output_tokens

    for key in ("aws_access_key_id", "aws_secret_access_key"):
        value = _secret(getattr(config, key))
        if value is not None:
            params[key] = value
    if config.aws_region_name is not None:
        params["aws_region_name"] = config.aws_region_name

    if config.safety_settings and ("mistral" in config.model or "gemini" in config.model):
        params["safety_settings"] = config.safety_settings
    return params
