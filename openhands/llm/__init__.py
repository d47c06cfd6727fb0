"""The LLM layer: LiteLLM behind one wrapper, with retries, metrics and mock tool calling.

Modules: ``llm`` (the LLM class), ``call_params`` (per-model call arguments), ``model_features``
and ``model_info`` (capabilities and limits), ``retry_mixin`` (backoff), ``cost`` and
``metrics`` (accounting), ``fn_call_converter`` / ``fn_call_prompt`` / ``fn_call_tags``
(mock function calling), ``completion_log``, ``llm_registry`` (one LLM per service),
``router/`` (model routing), ``conversation_stats`` (per-service metrics on disk).

Importing this package is cheap; LiteLLM is loaded when ``LLM`` (or a module using it) is.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

# LiteLLM fetches its price table from the internet at import unless this is set.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from openhands.llm.metrics import Cost, Metrics, ResponseLatency, TokenUsage

if TYPE_CHECKING:
    from openhands.llm.llm import LLM
    from openhands.llm.llm_registry import LLMRegistry, RegistryEvent

_LAZY = {
    "LLM": "openhands.llm.llm",
    "LLMRegistry": "openhands.llm.llm_registry",
    "RegistryEvent": "openhands.llm.llm_registry",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module_name), name)


__all__ = [
    "LLM",
    "Cost",
    "LLMRegistry",
    "Metrics",
    "RegistryEvent",
    "ResponseLatency",
    "TokenUsage",
]
