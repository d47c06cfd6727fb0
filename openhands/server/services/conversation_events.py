"""Reading a conversation's events over REST: search, trajectory, remember-prompt (§6.4)."""

from __future__ import annotations

import asyncio
import re
from itertools import islice
from typing import Any

from openhands.events.action import ChangeAgentStateAction, NullAction
from openhands.events.event import Event
from openhands.events.event_filter import EventFilter
from openhands.events.event_store import EventStore
from openhands.events.observation import AgentStateChangedObservation, NullObservation
from openhands.events.serialization import event_to_dict, event_to_trajectory
from openhands.server.errors import InvalidLimitError
from openhands.storage.files import FileStore

MAX_LIMIT = 100
_UPDATE_PROMPT = re.compile(r"<update_prompt>(.*?)</update_prompt>", re.DOTALL)


def search_events(
    file_store: FileStore,
    conversation_id: str,
    user_id: str | None,
    start_id: int,
    end_id: int | None,
    reverse: bool,
    event_filter: EventFilter | None,
    limit: int,
) -> tuple[list[dict[str, Any]], bool]:
    """(events, has_more), read straight from the store; blocking."""
    if limit < 0 or limit > MAX_LIMIT:
        raise InvalidLimitError()
    store = EventStore(conversation_id, file_store, user_id)
    found = list(
        store.search_events(
            start_id=start_id, end_id=end_id, reverse=reverse, filter=event_filter, limit=limit + 1
        )
    )
    return [event_to_dict(event) for event in found[:limit]], len(found) > limit


def trajectory(event_store: EventStore, include_screenshots: bool = False) -> list[dict[str, Any]]:
    events = event_store.search_events(filter=EventFilter(exclude_hidden=True))
    return [event_to_trajectory(event, include_screenshots) for event in events]


def _relevant(event: Event) -> bool:
    if getattr(event, "hidden", False):
        return False
    return not isinstance(
        event,
        NullAction | NullObservation | ChangeAgentStateAction | AgentStateChangedObservation,
    )


def events_around(event_store: EventStore, event_id: int) -> list[Event]:
    """Up to 4 relevant events before ``event_id`` and up to 5 from it onward, in order."""
    # islice stops the (lazy) reads once enough are found: a long history is not read whole.
    before = list(
        islice(
            (
                e
                for e in event_store.search_events(end_id=event_id - 1, reverse=True)
                if _relevant(e)
            ),
            4,
        )
    )
    after = list(
        islice((e for e in event_store.search_events(start_id=event_id) if _relevant(e)), 5)
    )
    return [*reversed(before), *after]


def remember_prompt_request(events: list[Event]) -> str:
    lines = "\n".join(f"- [{e.source}] {e.message}" for e in events if e.message)
    return (
        "The events below come from a conversation between a user and a coding agent. Write "
        "a short instruction for a repository microagent that captures what the agent should "
        "remember next time (conventions, commands, pitfalls). Put only the instruction "
        "between <update_prompt> and </update_prompt>.\n\n" + lines
    )


def extract_update_prompt(reply: str) -> str:
    match = _UPDATE_PROMPT.search(reply)
    return (match.group(1) if match else reply).strip()


async def read_events_around(event_store: EventStore, event_id: int) -> list[Event]:
    return await asyncio.to_thread(events_around, event_store, event_id)
