"""View.from_events: forgetting, summaries and pending condensation requests (spec §6.1)."""

from __future__ import annotations

from openhands.events.action import CondensationAction, CondensationRequestAction
from openhands.events.observation import AgentCondensationObservation
from openhands.memory.view import View
from tests.unit.memory.history import numbered, output, run, user


def test_plain_history_is_kept_whole() -> None:
    events = numbered(user("hi"), run("ls"), output("a"))
    view = View.from_events(events)
    assert view.events == events
    assert len(view) == 3
    assert view[1] is events[1]
    assert view[1:] == events[1:]
    assert list(view) == events
    assert not view.unhandled_condensation_request


def test_forgotten_ids_and_condensation_events_are_removed() -> None:
    events = numbered(
        user("hi"),  # 0
        run("a"),  # 1
        output("a"),  # 2
        run("b"),  # 3
        CondensationAction(forgotten_event_ids=[1, 2]),  # 4
        output("b"),  # 5
        CondensationAction(forgotten_events_start_id=3, forgotten_events_end_id=3),  # 6
        CondensationRequestAction(),  # 7
        run("c"),  # 8
    )
    view = View.from_events(events)
    assert [e.id for e in view] == [0, 5, 8]
    assert view.forgotten_event_ids == {1, 2, 3, 4, 6, 7}


def test_range_is_inclusive() -> None:
    events = numbered(
        user("hi"),
        run("a"),
        output("a"),
        run("b"),
        CondensationAction(forgotten_events_start_id=1, forgotten_events_end_id=3),
    )
    assert [e.id for e in View.from_events(events)] == [0]


def test_latest_summary_is_inserted_at_its_offset() -> None:
    events = numbered(
        user("hi"),  # 0
        run("a"),  # 1
        output("a"),  # 2
        CondensationAction(forgotten_event_ids=[1], summary="old", summary_offset=1),  # 3
        run("b"),  # 4
        CondensationAction(forgotten_event_ids=[2], summary="new", summary_offset=1),  # 5
        CondensationAction(forgotten_event_ids=[4]),  # 6: most recent, but no summary
        run("c"),  # 7
    )
    view = View.from_events(events)
    assert isinstance(view[1], AgentCondensationObservation)
    assert view[1].content == "new"
    assert [e.id for e in view if not isinstance(e, AgentCondensationObservation)] == [0, 7]
    assert len(view) == 3


def test_unhandled_request_until_a_condensation_follows() -> None:
    events = numbered(user("hi"), CondensationRequestAction(), run("x"))
    assert View.from_events(events).unhandled_condensation_request

    handled = numbered(
        user("hi"), CondensationRequestAction(), CondensationAction(forgotten_event_ids=[])
    )
    assert not View.from_events(handled).unhandled_condensation_request

    again = numbered(
        user("hi"),
        CondensationAction(forgotten_event_ids=[]),
        CondensationRequestAction(),
    )
    assert View.from_events(again).unhandled_condensation_request
