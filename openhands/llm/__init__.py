"""The LLM layer: LiteLLM behind one wrapper, with retries, metrics and mock tool calling.

Modules: ``llm`` (the LLM class), ``async_llm`` / ``streaming_llm`` (``AsyncLLM``,
``StreamingLLM``), ``debug_mixin`` (prompt/response logging), ``call_params`` (per-model call arguments), ``model_features``
and ``model_info`` (capabilities and limits), ``retry_mixin`` (backoff),
``provider_errors`` (what a provider's exception means), ``cost`` and
``metrics`` (accounting), ``fn_call_converter`` / ``fn_call_prompt`` / ``fn_call_tags``
(mock function calling), ``completion_log``, ``llm_registry`` (one LLM per service),
``router/`` (model routing), ``conversation_stats`` (per-service metrics on disk).

Importing this package is cheap; LiteLLM is loaded when ``LLM`` (or a module using it) is.
``Cost``, ``Metrics``, ``ResponseLatency``, ``TokenUsage``, ``LLMRegistry`` and
``RegistryEvent`` are importable from here too, outside ``__all__``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

# LiteLLM fetches its price table from the internet at import unless this is set.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# Re-exported (outside __all__, which names the reference's three classes).
from openhands.llm.metrics import Cost as Cost
from openhands.llm.metrics import Metrics as Metrics
from openhands.llm.metrics import ResponseLatency as ResponseLatency
from openhands.llm.metrics import TokenUsage as TokenUsage

if TYPE_CHECKING:
    from openhands.llm.async_llm import AsyncLLM
    from openhands.llm.llm import LLM
    from openhands.llm.llm_registry import LLMRegistry as LLMRegistry
    from openhands.llm.llm_registry import RegistryEvent as RegistryEvent
    from openhands.llm.streaming_llm import StreamingLLM

_LAZY = {
    "LLM": "openhands.llm.llm",
    "AsyncLLM": "openhands.llm.async_llm",
    "StreamingLLM": "openhands.llm.streaming_llm",
    "LLMRegistry": "openhands.llm.llm_registry",
    "RegistryEvent": "openhands.llm.llm_registry",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module_name), name)


__all__ = ["LLM", "AsyncLLM", "StreamingLLM"]
