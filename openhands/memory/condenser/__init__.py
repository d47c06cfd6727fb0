"""Condensers: shrink the history the agent sends to its LLM.

``condenser`` holds the seam (Condenser, RollingCondenser, Condensation and the
config → class registry); ``impl/`` has one module per ``[condenser] type``. Importing
this package registers them all, so ``Condenser.from_config`` works. ``View`` is
re-exported from ``openhands.memory.view`` (compatibility path); ``CONDENSER_REGISTRY`` and
``get_condensation_metadata`` come from ``registry.py``.
"""

from openhands.memory.condenser.condenser import Condensation, Condenser, RollingCondenser
from openhands.memory.condenser.impl import (
    AmortizedForgettingCondenser,
    BrowserOutputCondenser,
    CondenserPipeline,
    ConversationWindowCondenser,
    LLMAttentionCondenser,
    LLMSummarizingCondenser,
    NoOpCondenser,
    ObservationMaskingCondenser,
    RecentEventsCondenser,
    StructuredSummaryCondenser,
)
from openhands.memory.condenser.registry import CONDENSER_REGISTRY, get_condensation_metadata
from openhands.memory.view import View

__all__ = [
    "CONDENSER_REGISTRY",
    "AmortizedForgettingCondenser",
    "BrowserOutputCondenser",
    "Condensation",
    "Condenser",
    "CondenserPipeline",
    "ConversationWindowCondenser",
    "LLMAttentionCondenser",
    "LLMSummarizingCondenser",
    "NoOpCondenser",
    "ObservationMaskingCondenser",
    "RecentEventsCondenser",
    "RollingCondenser",
    "StructuredSummaryCondenser",
    "View",
    "get_condensation_metadata",
]
