"""One module per ``[condenser] type``; the package re-exports every condenser class."""

from openhands.memory.condenser.impl.amortized_forgetting_condenser import (
    AmortizedForgettingCondenser,
)
from openhands.memory.condenser.impl.browser_output_condenser import BrowserOutputCondenser
from openhands.memory.condenser.impl.conversation_window_condenser import (
    ConversationWindowCondenser,
)
from openhands.memory.condenser.impl.llm_attention_condenser import (
    ImportantEventSelection,
    LLMAttentionCondenser,
)
from openhands.memory.condenser.impl.llm_summarizing_condenser import LLMSummarizingCondenser
from openhands.memory.condenser.impl.no_op_condenser import NoOpCondenser
from openhands.memory.condenser.impl.observation_masking_condenser import (
    ObservationMaskingCondenser,
)
from openhands.memory.condenser.impl.pipeline import CondenserPipeline
from openhands.memory.condenser.impl.recent_events_condenser import RecentEventsCondenser
from openhands.memory.condenser.impl.structured_summary_condenser import (
    StructuredSummaryCondenser,
)

__all__ = [
    "AmortizedForgettingCondenser",
    "BrowserOutputCondenser",
    "CondenserPipeline",
    "ConversationWindowCondenser",
    "ImportantEventSelection",
    "LLMAttentionCondenser",
    "LLMSummarizingCondenser",
    "NoOpCondenser",
    "ObservationMaskingCondenser",
    "RecentEventsCondenser",
    "StructuredSummaryCondenser",
]
