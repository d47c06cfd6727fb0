"""Replaying a recorded trajectory instead of asking the agent (agent.md §8.12).

While a replay is unfinished, each controller step publishes the next recorded action
(with its source, args and tool-call metadata) instead of calling ``agent.step``. The
recorded observations are skipped: the runtime produces fresh ones.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openhands.events.action import Action, MessageAction, SystemMessageAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import NullObservation
from openhands.events.serialization.event import event_from_dict


class ReplayManager:
    def __init__(self, events: list[Event] | None) -> None:
        self.replay_events = _prepare(events or [])
        self.replay_mode = bool(self.replay_events)
        self.replay_index = 0

    def should_replay(self) -> bool:
        """True while a recorded action is left; skips recorded observations on the way."""
        if not self.replay_mode:
            return False
        while self.replay_index < len(self.replay_events) and not isinstance(
            self.replay_events[self.replay_index], Action
        ):
            self.replay_index += 1
        return self.replay_index < len(self.replay_events)

    def step(self) -> Action:
        """The next recorded action. Call only after :meth:`should_replay` said yes."""
        event = self.replay_events[self.replay_index]
        assert isinstance(event, Action)
        self.replay_index += 1
        return event

    @staticmethod
    def get_replay_events(trajectory: list[dict[str, Any]]) -> list[Event]:
        """Events from a trajectory's JSON list: ids cleared, environment events left out."""
        if not isinstance(trajectory, list):
            raise ValueError(f"Expected a list of events in the trajectory, got {type(trajectory)}")
        events: list[Event] = []
        for item in trajectory:
            event = event_from_dict(dict(item))
            if event.source == EventSource.ENVIRONMENT:
                continue
            event.id = Event.INVALID_ID
            events.append(event)
        return events


def _prepare(events: list[Event]) -> list[Event]:
    """Drop what the environment produced; only the last event may wait for the user."""
    kept = [
        event
        for event in events
        if event.source != EventSource.ENVIRONMENT and not isinstance(event, NullObservation)
    ]
    for index, event in enumerate(kept):
        if isinstance(event, MessageAction) and index != len(kept) - 1:
            event.wait_for_response = False
    return kept


def load_replay_log(path: str | Path) -> tuple[list[Event], MessageAction]:
    """Read a trajectory file: the first event is the initial user message, the rest replay.

    A leading system prompt (0.59 records one first) is skipped: the replaying agent
    publishes its own. Raises ValueError when no message follows.
    """
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"Replay trajectory {file} is not a file")
    events = ReplayManager.get_replay_events(json.loads(file.read_text(encoding="utf-8")))
    while events and isinstance(events[0], SystemMessageAction):
        events = events[1:]
    if not events or not isinstance(events[0], MessageAction):
        raise ValueError("The first event of a replay trajectory must be a MessageAction")
    return events[1:], events[0]
