"""Which events a summarizing condenser folds into its summary."""

from __future__ import annotations

from dataclasses import dataclass

from openhands.events.event import Event
from openhands.events.observation.agent import AgentCondensationObservation
from openhands.memory.view import View

NO_PREVIOUS_SUMMARY = "No events summarized"


@dataclass
class SummarySelection:
    previous_summary: str
    forgotten: list[Event]


def select_for_summary(view: View, keep_first: int, max_size: int) -> SummarySelection:
    """Keep the head and a recent tail; everything between goes into the summary.

    The tail is ``max_size // 2 - keep_first - 1`` events, leaving room for the summary.
    A summary already sitting right after the head is the previous summary and is not
    summarized again.
    """
    tail_length = max_size // 2 - keep_first - 1
    previous = view[keep_first] if keep_first < len(view) else None
    previous_summary = (
        previous.content
        if isinstance(previous, AgentCondensationObservation)
        else NO_PREVIOUS_SUMMARY
    )
    middle = view[keep_first : max(keep_first, len(view) - tail_length)]
    forgotten = _without_summaries(middle)
    if not forgotten:
        # A condensation request on a view shorter than the tail: fold in the older half.
        rest = _without_summaries(view[keep_first:])
        forgotten = rest[: max(1, len(rest) // 2)] if rest else []
    return SummarySelection(previous_summary=previous_summary, forgotten=forgotten)


def _without_summaries(events: list[Event]) -> list[Event]:
    return [event for event in events if not isinstance(event, AgentCondensationObservation)]
