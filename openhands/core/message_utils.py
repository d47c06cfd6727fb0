"""Finding the LLM token usage that belongs to an event.

Each LLM response is recorded in ``Metrics.token_usages`` under its response id. An
event knows that id through its tool call metadata (the response that produced the
tool call) or, for plain agent messages, through its own ``response_id``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openhands.events.event import Event
    from openhands.llm.metrics import Metrics, TokenUsage


def get_token_usage_for_event(event: Event | None, metrics: Metrics | None) -> TokenUsage | None:
    """The usage record of the response that produced ``event``; None if there is none.

    The tool call metadata's response id is tried first, then the event's ``response_id``.
    """
    if event is None or metrics is None:
        return None
    for response_id in _response_ids(event):
        for usage in metrics.token_usages:
            if usage.response_id == response_id:
                return usage
    return None


def get_token_usage_for_event_id(
    events: Sequence[Event], event_id: int, metrics: Metrics | None
) -> TokenUsage | None:
    """Walking back from the event with ``event_id``: the first event's usage record.

    None when no event has that id, or when neither it nor an earlier event has one.
    """
    start = next((i for i, e in enumerate(events) if e.id == event_id), None)
    if start is None:
        return None
    for event in reversed(events[: start + 1]):
        usage = get_token_usage_for_event(event, metrics)
        if usage is not None:
            return usage
    return None


def _response_ids(event: Event) -> Iterator[str]:
    metadata = event.tool_call_metadata
    if metadata is not None and metadata.model_response:
        response_id = metadata.model_response.get("id")
        if response_id:
            yield str(response_id)
    if event.response_id:
        yield event.response_id
