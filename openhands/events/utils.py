"""Helpers over a list of events, for tools that read histories after a run.

``get_pairs_from_events`` rebuilds the (action, observation) pairs that older histories
stored directly. Evaluation harnesses import it when they are loaded and write its result
into their output files, so its pairing rules are part of that output format.
"""

from __future__ import annotations

from openhands.core.logger import openhands_logger as logger
from openhands.events.action.action import Action
from openhands.events.action.empty import NullAction
from openhands.events.event import Event
from openhands.events.observation import CmdOutputObservation, NullObservation, Observation

__all__ = ["get_pairs_from_events"]


def get_pairs_from_events(events: list[Event]) -> list[tuple[Action, Observation]]:
    """The history as (action, observation) pairs.

    An observation belongs to the action its ``cause`` names. Every action gets one pair,
    in the order the actions first appear, with an empty ``NullObservation`` when nothing
    answered it; when several observations name the same action, the last one counts.
    Observations whose action is not in ``events`` (output of a background command, say)
    follow, paired with a ``NullAction``; ``NullObservation``s of that kind carry nothing
    and are left out, and so are observations with no cause at all.
    """
    actions: dict[int, Action] = {}
    answers: dict[int, Observation] = {}
    for event in events:
        if event.id == Event.INVALID_ID:
            logger.debug("Event without an id in the history: %s", event)
        if isinstance(event, Action):
            actions[event.id] = event
        elif isinstance(event, Observation):
            if event.cause is None:
                continue
            answers[event.cause] = event

    pairs: list[tuple[Action, Observation]] = []
    for action_id, action in actions.items():
        answer = answers.get(action_id)
        pairs.append((action, answer if answer is not None else NullObservation("")))
    for cause, observation in answers.items():
        if cause in actions or isinstance(observation, NullObservation):
            continue
        if not isinstance(observation, CmdOutputObservation):
            logger.debug("Observation whose action is not in the history: %s", observation)
        pairs.append((NullAction(), observation))
    return pairs
