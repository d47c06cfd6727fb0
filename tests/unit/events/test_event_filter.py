"""EventFilter applied to event objects directly (events.md §8.1), without a store."""

from __future__ import annotations

import pytest

from openhands.events.action import (
    Action,
    AgentFinishAction,
    CmdRunAction,
    MessageAction,
    SystemMessageAction,
)
from openhands.events.event import EventSource
from openhands.events.event_filter import EventFilter
from openhands.events.observation import (
    CmdOutputObservation,
    ErrorObservation,
    NullObservation,
    Observation,
)


def _stamp(event, source: str | None = "agent", ts: str | None = "2025-01-15T10:00:00"):
    if source:
        event.source = source
    if ts:
        event.timestamp = ts
    return event


def test_an_empty_filter_includes_everything() -> None:
    f = EventFilter()
    for event in (MessageAction("x"), NullObservation(""), _stamp(CmdRunAction("ls"))):
        assert f.include(event) and not f.exclude(event)


def test_exclude_is_the_negation_of_include() -> None:
    f = EventFilter(source="user")
    user, agent = _stamp(MessageAction("u"), "user"), _stamp(MessageAction("a"), "agent")
    assert (f.include(user), f.exclude(user)) == (True, False)
    assert (f.include(agent), f.exclude(agent)) == (False, True)


def test_empty_type_tuples_do_not_restrict() -> None:
    f = EventFilter(include_types=(), exclude_types=())
    assert f.include(MessageAction("x")) and f.include(ErrorObservation("e"))


def test_type_checks_use_isinstance() -> None:
    actions_only = EventFilter(include_types=(Action,))
    assert actions_only.include(SystemMessageAction("s"))
    assert not actions_only.include(NullObservation(""))
    several = EventFilter(include_types=(MessageAction, ErrorObservation))
    assert several.include(ErrorObservation("e")) and several.include(MessageAction("m"))
    assert not several.include(AgentFinishAction())
    no_obs = EventFilter(exclude_types=(Observation,))
    assert no_obs.include(MessageAction("m")) and not no_obs.include(ErrorObservation("e"))
    # Types given as a list are accepted too.
    assert EventFilter(include_types=[CmdRunAction]).include(CmdRunAction("ls"))


def test_source_must_match_and_be_present() -> None:
    f = EventFilter(source="environment")
    assert f.include(_stamp(NullObservation(""), "environment"))
    assert not f.include(_stamp(NullObservation(""), "agent"))
    assert not f.include(NullObservation(""))  # no source at all
    assert EventFilter(source=EventSource.USER.value).include(_stamp(MessageAction("x"), "user"))


def test_date_bounds_are_inclusive_and_skip_events_without_timestamp() -> None:
    f = EventFilter(start_date="2025-01-15T10:00:00", end_date="2025-01-15T11:00:00")
    assert f.include(_stamp(NullObservation(""), ts="2025-01-15T10:00:00"))
    assert f.include(_stamp(NullObservation(""), ts="2025-01-15T11:00:00"))
    assert f.include(_stamp(NullObservation(""), ts="2025-01-15T10:30:00.5"))
    assert not f.include(_stamp(NullObservation(""), ts="2025-01-15T09:59:59.999999"))
    assert not f.include(_stamp(NullObservation(""), ts="2025-01-15T11:00:00.000001"))
    assert f.include(_stamp(NullObservation(""), ts=None))


def test_exclude_hidden_looks_only_at_the_hidden_field() -> None:
    f = EventFilter(exclude_hidden=True)
    assert not f.include(CmdRunAction("internal", hidden=True))
    assert not f.include(CmdOutputObservation("", command="internal", hidden=True))
    assert f.include(CmdRunAction("visible"))
    assert f.include(MessageAction("no hidden field"))
    assert EventFilter().include(CmdRunAction("internal", hidden=True))


@pytest.mark.parametrize(
    ("query", "included"),
    [
        ("PYTEST -Q", True),  # case-insensitive, on the content
        ("running command: pytest", True),  # the computed message is part of the text
        ('"is_static"', True),  # keys too
        ('"action": "run"', True),  # standard separators
        ('"action":"run"', False),
        ("nowhere", False),
    ],
)
def test_query_matches_the_json_text(query: str, included: bool) -> None:
    event = _stamp(CmdRunAction("pytest -q"))
    assert EventFilter(query=query).include(event) is included


def test_every_check_must_pass() -> None:
    f = EventFilter(
        include_types=(CmdRunAction,),
        source="agent",
        query="deploy",
        exclude_hidden=True,
        start_date="2025-01-01",
    )
    assert f.include(_stamp(CmdRunAction("deploy")))
    assert not f.include(_stamp(CmdRunAction("deploy"), source="user"))
    assert not f.include(_stamp(CmdRunAction("deploy", hidden=True)))
    assert not f.include(_stamp(CmdRunAction("build")))
    assert not f.include(_stamp(MessageAction("deploy")))
    assert not f.include(_stamp(CmdRunAction("deploy"), ts="2024-12-31T23:59:59"))
