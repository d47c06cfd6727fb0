"""Condensers: shrink the history the agent sends to its LLM.

``condenser`` holds the seam (Condenser, RollingCondenser, Condensation and the
config → class registry); ``impl/`` has one module per ``[condenser] type``. Importing
this package registers them all, so ``Condenser.from_config`` works. ``View`` is
re-exported from ``openhands.memory.view`` (compatibility path).
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
from openhands.memory.view import View

__all__ = [
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
]
