"""The LLM a condenser talks to."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openhands.llm.llm import LLM

CONDENSER_SERVICE_ID = "condenser"


def condenser_llm(config: Any, llm_registry: Any) -> LLM:
    """The ``condenser`` service LLM, with prompt caching off (summaries are one-offs)."""
    llm_config = config.llm_config.model_copy(update={"caching_prompt": False})
    return llm_registry.get_llm(CONDENSER_SERVICE_ID, llm_config)
