"""What one completion cost, from the provider header or LiteLLM's price table."""

from __future__ import annotations

from typing import Any

import litellm
from litellm.types.utils import CostPerToken

from openhands.core.config import LLMConfig

COST_HEADER = "llm_provider-x-litellm-response-cost"


class CostUnavailable(Exception):
    """No price is known for this model."""


def _header_cost(response: Any) -> float | None:
    hidden = getattr(response, "_hidden_params", None) or {}
    headers = hidden.get("additional_headers") or {}
    value = headers.get(COST_HEADER)
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def completion_cost(response: Any, config: LLMConfig) -> float:
    """The cost in USD. Raises CostUnavailable when neither header nor price table knows it."""
    cost = _header_cost(response)
    if cost is not None:
        return cost
    extra: dict[str, Any] = {}
    if config.input_cost_per_token is not None and config.output_cost_per_token is not None:
        extra["custom_cost_per_token"] = CostPerToken(
            input_cost_per_token=config.input_cost_per_token,
            output_cost_per_token=config.output_cost_per_token,
        )
    try:
        return float(litellm.completion_cost(completion_response=response, **extra))
    except Exception:  # LiteLLM raises assorted types for an unpriced model
        pass
    if "/" in config.model:
        stripped = config.model.split("/", 1)[1]
        try:
            return float(
                litellm.completion_cost(completion_response=response, model=stripped, **extra)
            )
        except Exception:
            pass
    raise CostUnavailable(config.model)
