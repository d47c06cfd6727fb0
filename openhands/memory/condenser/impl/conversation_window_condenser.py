"""``conversation_window``: on request, keep the essentials and the recent half of the rest."""

from __future__ import annotations

from openhands.core.config.condenser_config import ConversationWindowCondenserConfig
from openhands.core.logger import openhands_logger as logger
from openhands.events.action.agent import CondensationAction, RecallAction
from openhands.events.action.message import MessageAction, SystemMessageAction
from openhands.events.event import Event, EventSource
from openhands.events.observation.agent import RecallObservation
from openhands.events.observation.observation import Observation
from openhands.memory.condenser.condenser import Condensation, Condenser, RollingCondenser
from openhands.memory.view import View


@Condenser.register(ConversationWindowCondenserConfig)
class ConversationWindowCondenser(RollingCondenser):
    """Runs only when a condensation was requested (e.g. after a context-window error)."""

    def should_condense(self, view: View) -> bool:
        return view.unhandled_condensation_request

    def get_condensation(self, view: View) -> Condensation:
        events = view.events
        essential = essential_event_ids(events)
        if essential is None:
            logger.warning("No user message in the history; nothing to condense")
            return Condensation(action=CondensationAction(forgotten_event_ids=[]))

        recent = recent_events(events, len(essential))
        if not recent and len(events) > len(essential):
            logger.warning(
                "All recent events are dangling observations, which we truncate. This means "
                "the agent has only the essential first events. This should not happen."
            )
        keep = set(essential) | {event.id for event in recent}
        forgotten = sorted(event.id for event in events if event.id not in keep)
        return Condensation(action=_forget(forgotten))


def essential_event_ids(events: list[Event]) -> list[int] | None:
    """System prompt, first user message, its recall and the recall's answer.

    None when there is no user message at all.
    """
    first_user_index = next(
        (
            i
            for i, event in enumerate(events)
            if isinstance(event, MessageAction) and event.source == EventSource.USER
        ),
        None,
    )
    if first_user_index is None:
        return None
    first_user = events[first_user_index]
    assert isinstance(first_user, MessageAction)

    essential: list[int] = []
    system = next((e for e in events if isinstance(e, SystemMessageAction)), None)
    if system is not None:
        essential.append(system.id)
    essential.append(first_user.id)

    for i in range(first_user_index + 1, len(events)):
        recall = events[i]
        if isinstance(recall, RecallAction) and recall.query == first_user.content:
            essential.append(recall.id)
            answer = next(
                (
                    e
                    for e in events[i + 1 :]
                    if isinstance(e, RecallObservation) and e.cause == recall.id
                ),
                None,
            )
            if answer is not None:
                essential.append(answer.id)
            break
    return essential


def recent_events(events: list[Event], essential_count: int) -> list[Event]:
    """The newer half of the non-essential events, not starting with an observation
    (an observation without its action would confuse the model)."""
    keep_count = max(1, (len(events) - essential_count) // 2)
    recent = events[max(0, len(events) - keep_count) :]
    start = 0
    while start < len(recent) and isinstance(recent[start], Observation):
        start += 1
    return recent[start:]


def _forget(ids: list[int]) -> CondensationAction:
    contiguous = len(ids) > 1 and ids == list(range(ids[0], ids[-1] + 1))
    if contiguous:
        return CondensationAction(forgotten_events_start_id=ids[0], forgotten_events_end_id=ids[-1])
    return CondensationAction(forgotten_event_ids=ids)
