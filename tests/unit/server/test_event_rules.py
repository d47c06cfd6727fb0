"""Which events go to the browser, live and on replay (server-api §7.4, §7.5)."""

from __future__ import annotations

from openhands.events.action import CmdRunAction, MessageAction, NullAction, RecallAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import (
    AgentStateChangedObservation,
    CmdOutputObservation,
    ErrorObservation,
    FileReadObservation,
    NullObservation,
    RecallObservation,
)
from openhands.server.session.event_rules import live_payload, replay_payloads


def sourced(event: Event, source: EventSource, event_id: int = 1) -> Event:
    event.source = source
    event.id = event_id
    event.timestamp = "2025-01-01T00:00:00"
    return event


def test_live_rules() -> None:
    assert live_payload(sourced(NullAction(), EventSource.AGENT)) is None
    assert live_payload(sourced(NullObservation(""), EventSource.AGENT)) is None
    user = live_payload(sourced(MessageAction("hi"), EventSource.USER))
    assert user is not None and user["source"] == "user"
    agent = live_payload(sourced(CmdRunAction("ls"), EventSource.AGENT))
    assert agent is not None and agent["source"] == "agent"
    for shown in (
        CmdOutputObservation(content="", command="ls"),
        AgentStateChangedObservation("", "running"),
        RecallObservation(content="", recall_type="knowledge"),
        ErrorObservation("bad"),
    ):
        payload = live_payload(sourced(shown, EventSource.ENVIRONMENT))
        assert payload is not None and payload["source"] == "agent"
    hidden = FileReadObservation(content="x", path="/a")
    assert live_payload(sourced(hidden, EventSource.ENVIRONMENT)) is None
    assert live_payload(sourced(MessageAction("x"), EventSource.ENVIRONMENT)) is None


def test_replay_rules() -> None:
    events = [
        sourced(AgentStateChangedObservation("", "loading"), EventSource.ENVIRONMENT, 0),
        sourced(MessageAction("hi"), EventSource.USER, 1),
        sourced(RecallAction(recall_type="knowledge", query="hi"), EventSource.USER, 2),
        sourced(NullObservation(""), EventSource.ENVIRONMENT, 3),
        sourced(AgentStateChangedObservation("", "running"), EventSource.ENVIRONMENT, 4),
        sourced(FileReadObservation(content="x", path="/a"), EventSource.ENVIRONMENT, 5),
    ]
    payloads = replay_payloads(events)
    assert [p["id"] for p in payloads] == [1, 5, 4]
    assert payloads[-1]["extras"]["agent_state"] == "running"
    assert payloads[1]["source"] == "environment"
