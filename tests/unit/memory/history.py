"""Small builders for synthetic histories (events with ids and sources, as the stream sets)."""

from __future__ import annotations

from openhands.events.action import (
    CmdRunAction,
    MessageAction,
    RecallAction,
    SystemMessageAction,
)
from openhands.events.event import Event, EventSource, RecallType
from openhands.events.observation import CmdOutputMetadata, CmdOutputObservation, RecallObservation


def numbered(*events: Event, start: int = 0) -> list[Event]:
    """Give each event the next id; events without a source become agent events."""
    for offset, event in enumerate(events):
        event.id = start + offset
        if event.source is None:
            event.source = EventSource.AGENT
    return list(events)


def user(text: str) -> MessageAction:
    message = MessageAction(content=text)
    message.source = EventSource.USER
    return message


def run(command: str) -> CmdRunAction:
    return CmdRunAction(command=command)


def output(text: str, cause: int | None = None) -> CmdOutputObservation:
    obs = CmdOutputObservation(content=text, command="cmd", metadata=CmdOutputMetadata(exit_code=0))
    obs.cause = cause
    return obs


def conversation(n_pairs: int) -> list[Event]:
    """system, user, recall, recall answer, then n (run, output) pairs; ids from 0."""
    recall = RecallAction(recall_type=RecallType.WORKSPACE_CONTEXT, query="do it")
    recall.source = EventSource.USER
    answer = RecallObservation(content="ctx", recall_type=RecallType.WORKSPACE_CONTEXT)
    answer.cause = 2
    answer.source = EventSource.ENVIRONMENT
    events: list[Event] = [SystemMessageAction(content="sys"), user("do it"), recall, answer]
    for i in range(n_pairs):
        events += [run(f"step {i}"), output(f"out {i}")]
    return numbered(*events)
