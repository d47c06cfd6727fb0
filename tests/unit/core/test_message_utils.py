"""Token usage lookup for events (python-api.md §5.3, checklist item 15)."""

from __future__ import annotations

from openhands.core.message_utils import get_token_usage_for_event, get_token_usage_for_event_id
from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.event import Event
from openhands.events.observation import CmdOutputObservation
from openhands.events.tool import ToolCallMetadata
from openhands.llm.metrics import Metrics


def _metrics(*response_ids: str) -> Metrics:
    metrics = Metrics("m")
    for n, rid in enumerate(response_ids):
        metrics.add_token_usage(
            prompt_tokens=10 * (n + 1),
            completion_tokens=1,
            cache_read_tokens=0,
            cache_write_tokens=0,
            context_window=1000,
            response_id=rid,
        )
    return metrics


def _with_id(event: Event, event_id: int) -> Event:
    event._id = event_id
    return event


def _tool_action(response_id: str) -> CmdRunAction:
    action = CmdRunAction("ls")
    action.tool_call_metadata = ToolCallMetadata(
        function_name="execute_bash",
        tool_call_id="c1",
        model_response={"id": response_id},
        total_calls_in_response=1,
    )
    return action


def test_usage_by_tool_call_response_id() -> None:
    metrics = _metrics("r1", "r2")
    usage = get_token_usage_for_event(_tool_action("r2"), metrics)
    assert usage is not None and usage.response_id == "r2" and usage.prompt_tokens == 20


def test_usage_falls_back_to_the_events_response_id() -> None:
    metrics = _metrics("r1")
    message = MessageAction("hi")
    message.response_id = "r1"
    assert get_token_usage_for_event(message, metrics) is metrics.token_usages[0]
    # Metadata pointing at an unknown response: the event's own id still counts.
    action = _tool_action("unknown")
    action.response_id = "r1"
    assert get_token_usage_for_event(action, metrics) is metrics.token_usages[0]


def test_no_usage_gives_none() -> None:
    assert get_token_usage_for_event(MessageAction("hi"), _metrics("r1")) is None
    assert get_token_usage_for_event(None, _metrics("r1")) is None
    assert get_token_usage_for_event(_tool_action("r1"), None) is None


def test_usage_for_event_id_walks_backwards() -> None:
    metrics = _metrics("r1", "r2")
    events: list[Event] = [
        _with_id(_tool_action("r1"), 0),
        _with_id(CmdOutputObservation("x", command="ls"), 1),
        _with_id(_tool_action("r2"), 2),
        _with_id(CmdOutputObservation("y", command="ls"), 3),
        _with_id(CmdOutputObservation("z", command="ls"), 4),
    ]
    found = get_token_usage_for_event_id(events, 4, metrics)
    assert found is not None and found.response_id == "r2"  # the nearest earlier record
    found = get_token_usage_for_event_id(events, 1, metrics)
    assert found is not None and found.response_id == "r1"  # later events are not looked at
    assert get_token_usage_for_event_id(events, 99, metrics) is None
    assert get_token_usage_for_event_id(events[1:2], 1, metrics) is None
