"""``structured``: like ``llm``, but the summary is a forced function call with fixed fields."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openhands.core.config.condenser_config import StructuredSummaryCondenserConfig
from openhands.core.message import Message, TextContent
from openhands.memory.condenser.condenser import Condensation, Condenser, RollingCondenser
from openhands.memory.condenser.impl._llm import condenser_llm
from openhands.memory.condenser.impl._summary_selection import select_for_summary
from openhands.memory.condenser.impl._window import check_window, forget_range
from openhands.memory.condenser.impl.llm_summarizing_condenser import build_summary_prompt
from openhands.memory.condenser.impl.state_summary import SUMMARY_TOOL_NAME, StateSummary
from openhands.memory.view import View

if TYPE_CHECKING:
    from openhands.llm.llm import LLM


@Condenser.register(StructuredSummaryCondenserConfig)
class StructuredSummaryCondenser(RollingCondenser):
    def __init__(
        self,
        llm: LLM,
        max_size: int = 100,
        keep_first: int = 1,
        max_event_length: int = 10_000,
    ) -> None:
        super().__init__()
        check_window(keep_first, max_size)
        if not llm.is_function_calling_active():
            raise ValueError("The structured summary condenser needs native function calling")
        self.llm = llm
        self.max_size = max_size
        self.keep_first = keep_first
        self.max_event_length = max_event_length

    def should_condense(self, view: View) -> bool:
        return len(view) > self.max_size or view.unhandled_condensation_request

    def get_condensation(self, view: View) -> Condensation:
        selection = select_for_summary(view, self.keep_first, self.max_size)
        prompt = build_summary_prompt(
            selection.previous_summary, selection.forgotten, self.max_event_length
        )
        response = self.llm.completion(
            messages=[Message(role="user", content=[TextContent(text=prompt)])],
            tools=[StateSummary.tool()],
            tool_choice={"type": "function", "function": {"name": SUMMARY_TOOL_NAME}},
            extra_body={"metadata": self.llm_metadata},
        )
        summary = _summary_from(response)
        self.add_metadata("response", response.model_dump())
        self.add_metadata("metrics", self.llm.metrics.get())
        action = forget_range(
            (event.id for event in selection.forgotten),
            summary=str(summary),
            summary_offset=self.keep_first,
        )
        return Condensation(action=action)

    @classmethod
    def build(cls, config: Any, llm_registry: Any) -> StructuredSummaryCondenser:
        return cls(
            llm=condenser_llm(config, llm_registry),
            max_size=config.max_size,
            keep_first=config.keep_first,
            max_event_length=config.max_event_length,
        )


def _summary_from(response: Any) -> StateSummary:
    try:
        calls = response.choices[0].message.tool_calls or []
    except (AttributeError, IndexError):
        return StateSummary()
    for call in calls:
        if call.function.name == SUMMARY_TOOL_NAME:
            return StateSummary.from_arguments(call.function.arguments or "")
    return StateSummary()
