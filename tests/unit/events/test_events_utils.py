"""``openhands.events.utils.get_pairs_from_events``: a history as (action, observation) pairs."""

from __future__ import annotations

from openhands.events.action import (
    Action,
    AgentFinishAction,
    CmdRunAction,
    MessageAction,
    NullAction,
)
from openhands.events.event import Event
from openhands.events.observation import (
    CmdOutputObservation,
    ErrorObservation,
    NullObservation,
    Observation,
)
from openhands.events.utils import get_pairs_from_events


def _numbered(*events: Event) -> list[Event]:
    for number, event in enumerate(events):
        event.id = number
    return list(events)


def _answer(observation: Observation, cause: int | None) -> Observation:
    observation.cause = cause
    return observation


def _kinds(pairs: list[tuple[Action, Observation]]) -> list[tuple[str, str]]:
    return [(a.action, o.observation) for a, o in pairs]


def test_each_action_is_paired_with_the_observation_it_caused() -> None:
    events = _numbered(
        MessageAction("list the files"),
        CmdRunAction("ls"),
        _answer(CmdOutputObservation("a.txt", command="ls", exit_code=0), cause=1),
        AgentFinishAction(),
    )

    pairs = get_pairs_from_events(events)

    assert pairs[1][0] is events[1] and pairs[1][1] is events[2]
    assert _kinds(pairs) == [("message", "null"), ("run", "run"), ("finish", "null")]
    # An unanswered action gets a fresh, empty NullObservation.
    assert pairs[0][1].content == "" and pairs[0][1] is not pairs[2][1]


def test_observations_without_their_action_follow_with_a_null_action() -> None:
    events = _numbered(
        CmdRunAction("sleep 100 &"),
        _answer(CmdOutputObservation("done", command="sleep", exit_code=0), cause=42),
        _answer(ErrorObservation("lost"), cause=43),
        _answer(NullObservation(""), cause=44),  # nothing to show: left out
        _answer(ErrorObservation("no cause"), cause=None),  # belongs nowhere: left out
    )

    pairs = get_pairs_from_events(events)

    assert _kinds(pairs) == [("run", "null"), ("null", "run"), ("null", "error")]
    assert isinstance(pairs[1][0], NullAction) and pairs[1][1] is events[1]
    assert pairs[2][1] is events[2]


def test_the_last_observation_of_an_action_wins() -> None:
    events = _numbered(
        CmdRunAction("make"),
        _answer(ErrorObservation("first try"), cause=0),
        _answer(CmdOutputObservation("built", command="make", exit_code=0), cause=0),
    )

    assert get_pairs_from_events(events) == [(events[0], events[2])]


def test_an_empty_history_has_no_pairs() -> None:
    assert get_pairs_from_events([]) == []
