"""Which events reach the browser, and in what form (server-api §7.4, §7.5). Pure functions."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from openhands.events.action import NullAction, RecallAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import (
    AgentStateChangedObservation,
    CmdOutputObservation,
    ErrorObservation,
    NullObservation,
    RecallObservation,
)
from openhands.events.serialization import event_to_dict
from openhands.server.models.socket import Payload

# Environment observations that are shown live, re-labelled as coming from the agent.
_LIVE_ENVIRONMENT_TYPES = (
    CmdOutputObservation,
    AgentStateChangedObservation,
    RecallObservation,
    ErrorObservation,
)


def live_payload(event: Event) -> Payload | None:
    """The `oh_event` payload of a new stream event, or None when it is not sent live."""
    if isinstance(event, NullAction | NullObservation):
        return None
    if event.source in (EventSource.AGENT, EventSource.USER):
        return event_to_dict(event)
    if isinstance(event, _LIVE_ENVIRONMENT_TYPES):
        payload = event_to_dict(event)
        payload["source"] = EventSource.AGENT.value
        return payload
    return None


def replay_payloads(events: Iterable[Event]) -> list[Payload]:
    """Stored events to replay, in order: null and recall-action events are skipped and only
    the last `agent_state_changed` is sent, after everything else."""
    return list(iter_replay_payloads(events))


def iter_replay_payloads(events: Iterable[Event]) -> Iterator[Payload]:
    """:func:`replay_payloads` one at a time, as ``events`` are read (for streaming)."""
    last_state: AgentStateChangedObservation | None = None
    for event in events:
        if isinstance(event, NullAction | NullObservation | RecallAction):
            continue
        if isinstance(event, AgentStateChangedObservation):
            last_state = event  # serialized only if it stays the last one
            continue
        yield event_to_dict(event)
    if last_state is not None:
        yield event_to_dict(last_state)
