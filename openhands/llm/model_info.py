"""Model metadata (LiteLLM's bundled table, or a LiteLLM proxy's ``/v1/model/info``) and the
token limits derived from it."""

from __future__ import annotations

from typing import Any

import litellm
from pydantic import SecretStr

from openhands.core.logger import openhands_logger as logger

PROXY_PREFIX = "litellm_proxy/"
# A proxy that does not answer quickly only costs us its limits, not the LLM.
PROXY_MODEL_INFO_TIMEOUT = 5.0

# Models whose output limit we raise above what the table says (extended output).
_LONG_OUTPUT_MARKERS: tuple[str, ...] = (
    "claude-3-7-sonnet",
    "claude-3.7-sonnet",
    "claude-sonnet-4",
    "sonnet-4-5-20250929",
)
LONG_OUTPUT_TOKENS = 64_000


def _litellm_model_info(model: str) -> dict[str, Any] | None:
    try:
        return dict(litellm.get_model_info(model))
    except Exception:  # unknown model: LiteLLM raises several types for this
        return None


def fetch_model_info(model: str) -> dict[str, Any] | None:
    """LiteLLM's info for the model, then without its ``:tag``, then for its basename;
    None for models it does not know."""
    candidates = [model, model.split(":", 1)[0], model.rsplit("/", 1)[-1]]
    for candidate in dict.fromkeys(candidates):
        info = _litellm_model_info(candidate)
        if info is not None:
            return info
    return None


def fetch_proxy_model_info(
    base_url: str | None,
    api_key: SecretStr | None,
    model_name: str,
    timeout: float = PROXY_MODEL_INFO_TIMEOUT,
) -> dict[str, Any] | None:
    """``model_info`` of ``model_name`` from a LiteLLM proxy's ``GET <base_url>/v1/model/info``
    (``{"data": [{"model_name": ..., "model_info": {...}}, ...]}``); None when the proxy does
    not answer or does not list the model."""
    import httpx

    url = (base_url or "").strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        url = "http://" + url
    key = api_key.get_secret_value() if api_key is not None else ""
    try:
        response = httpx.get(
            f"{url}/v1/model/info",
            headers={"Authorization": f"Bearer {key}"},
            timeout=timeout,
        )
        response.raise_for_status()
        entries = response.json().get("data", [])
    except Exception as exc:  # unreachable proxy, HTTP error, not JSON, not an object
        logger.debug("No model info from the LiteLLM proxy at %s: %s", url, exc)
        return None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("model_name") == model_name:
            info = entry.get("model_info")
            return dict(info) if isinstance(info, dict) else None
    return None


def lookup_model_info(
    model: str, base_url: str | None = None, api_key: SecretStr | None = None
) -> dict[str, Any] | None:
    """OpenRouter models from LiteLLM by their full name, LiteLLM proxy models from the
    proxy; then (for those too, if that gave nothing) LiteLLM's table by name."""
    info: dict[str, Any] | None = None
    if model.startswith("openrouter"):
        info = _litellm_model_info(model)
    elif model.startswith(PROXY_PREFIX):
        info = fetch_proxy_model_info(base_url, api_key, model.removeprefix(PROXY_PREFIX))
    return info if info else fetch_model_info(model)


def resolve_max_input_tokens(configured: int | None, info: dict[str, Any] | None) -> int | None:
    if configured is not None:
        return configured
    if info and isinstance(info.get("max_input_tokens"), int):
        return int(info["max_input_tokens"])
    return None


def resolve_max_output_tokens(
    model: str, configured: int | None, info: dict[str, Any] | None
) -> int | None:
    if configured is not None:
        return configured
    if any(marker in model for marker in _LONG_OUTPUT_MARKERS):
        return LONG_OUTPUT_TOKENS
    if info:
        for key in ("max_output_tokens", "max_tokens"):
            if isinstance(info.get(key), int):
                return int(info[key])
    return None
