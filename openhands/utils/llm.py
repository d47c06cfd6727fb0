"""The model names the settings pages and the terminal app offer (cli.md §4.2).

LiteLLM's own model table (the price map ships with LiteLLM, nothing is downloaded), the
Bedrock models LiteLLM knows when an LLM section carries AWS credentials, the models an
Ollama server reports for each section with ``ollama_base_url``, and the ``openhands/…``
models of the OpenHands LLM proxy.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openhands.core.config.openhands_config import OpenHandsConfig

logger = logging.getLogger(__name__)

OPENHANDS_MODELS: tuple[str, ...] = (
    "openhands/claude-sonnet-4-20250514",
    "openhands/claude-sonnet-4-5-20250929",
    "openhands/claude-opus-4-20250514",
    "openhands/gpt-5-2025-08-07",
    "openhands/gpt-5-mini-2025-08-07",
    "openhands/o3",
    "openhands/o4-mini",
    "openhands/gemini-2.5-pro",
    "openhands/devstral-small-2505",
    "openhands/devstral-small-2507",
    "openhands/devstral-medium-2507",
    "openhands/kimi-k2-0711-preview",
    "openhands/qwen3-coder-480b",
)
_OLLAMA_TIMEOUT_SECONDS = 3.0


def litellm_models() -> set[str]:
    """LiteLLM's known models, as ``provider/model`` where LiteLLM names the provider."""
    import litellm

    models: set[str] = set(litellm.model_list)
    for name, info in litellm.model_cost.items():
        if name == "sample_spec":
            continue
        provider = info.get("litellm_provider") if isinstance(info, dict) else None
        models.add(name if "/" in name or not provider else f"{provider}/{name}")
    return models


def ollama_models(base_url: str) -> list[str]:
    """``ollama/<name>`` for each model the Ollama server at ``base_url`` has; [] when it
    cannot be reached."""
    import httpx

    try:
        response = httpx.get(f"{base_url.rstrip('/')}/api/tags", timeout=_OLLAMA_TIMEOUT_SECONDS)
        response.raise_for_status()
        entries = response.json().get("models", [])
    except (httpx.HTTPError, ValueError, AttributeError) as error:
        logger.info("Could not list the models of Ollama at %s: %s", base_url, error)
        return []
    return [f"ollama/{entry['name']}" for entry in entries if isinstance(entry, dict)]


def get_supported_llm_models(config: OpenHandsConfig) -> list[str]:
    """Every model name to offer, sorted, without duplicates."""
    models = litellm_models()
    llm_configs = list(config.llms.values())
    if any(c.aws_region_name or c.aws_access_key_id for c in llm_configs):
        import litellm

        models.update(f"bedrock/{name}" for name in litellm.bedrock_models)
    for base_url in {c.ollama_base_url for c in llm_configs if c.ollama_base_url}:
        models.update(ollama_models(base_url))
    models.update(OPENHANDS_MODELS)
    return sorted(models)
