"""Model metadata from LiteLLM's bundled table, and the token limits derived from it."""

from __future__ import annotations

from typing import Any

import litellm

# Models whose output limit we raise above what the table says (extended output).
_LONG_OUTPUT_MARKERS: tuple[str, ...] = (
    "claude-3-7-sonnet",
    "claude-3.7-sonnet",
    "claude-sonnet-4",
    "sonnet-4-5-20250929",
)
LONG_OUTPUT_TOKENS = 64_000


def fetch_model_info(model: str) -> dict[str, Any] | None:
    """LiteLLM's info for the model, or for its basename; None for models it does not know."""
    candidates = [model]
    if "/" in model:
        candidates.append(model.rsplit("/", 1)[1])
    for candidate in candidates:
        try:
            return dict(litellm.get_model_info(candidate))
        except Exception:  # unknown model: LiteLLM raises several types for this
            continue
    return None


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
