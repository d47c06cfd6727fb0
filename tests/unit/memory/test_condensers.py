"""Selection logic of the condensers that need no LLM (spec §6.2)."""

from __future__ import annotations

import logging

import pytest

from openhands.controller.state.state import State
from openhands.core.config.condenser_config import (
    AmortizedForgettingCondenserConfig,
    BrowserOutputCondenserConfig,
    CondenserPipelineConfig,
    ConversationWindowCondenserConfig,
    NoOpCondenserConfig,
    ObservationMaskingCondenserConfig,
    RecentEventsCondenserConfig,
)
from openhands.events.action import CondensationAction, CondensationRequestAction
from openhands.events.event import Event
from openhands.events.observation import AgentCondensationObservation, BrowserOutputObservation
from openhands.memory.condenser import (
    AmortizedForgettingCondenser,
    BrowserOutputCondenser,
    Condensation,
    Condenser,
    CondenserPipeline,
    ConversationWindowCondenser,
    NoOpCondenser,
    ObservationMaskingCondenser,
    RecentEventsCondenser,
)
from openhands.memory.condenser.condenser import CONDENSER_METADATA_KEY
from openhands.memory.view import View
from tests.unit.memory.history import conversation, numbered, output, run, user


def _ids(result: View | Condensation) -> list[int]:
    assert isinstance(result, View)
    return [e.id for e in result]


def _view(events: list[Event]) -> View:
    return View.from_events(events)


# --- from_config -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (NoOpCondenserConfig(), NoOpCondenser),
        (ObservationMaskingCondenserConfig(attention_window=3), ObservationMaskingCondenser),
        (BrowserOutputCondenserConfig(), BrowserOutputCondenser),
        (RecentEventsCondenserConfig(keep_first=2, max_events=7), RecentEventsCondenser),
        (AmortizedForgettingCondenserConfig(max_size=20), AmortizedForgettingCondenser),
        (ConversationWindowCondenserConfig(), ConversationWindowCondenser),
    ],
)
def test_from_config_builds_the_registered_class(config: object, expected: type) -> None:
    condenser = Condenser.from_config(config, llm_registry=None)  # type: ignore[arg-type]
    assert type(condenser) is expected


def test_from_config_passes_settings_and_builds_pipelines() -> None:
    config = CondenserPipelineConfig(
        condensers=[
            ObservationMaskingCondenserConfig(attention_window=3),
            RecentEventsCondenserConfig(keep_first=2, max_events=7),
        ]
    )
    pipeline = Condenser.from_config(config, llm_registry=None)  # type: ignore[arg-type]
    assert isinstance(pipeline, CondenserPipeline)
    masking, recent = pipeline.condensers
    assert isinstance(masking, ObservationMaskingCondenser) and masking.attention_window == 3
    assert isinstance(recent, RecentEventsCondenser)
    assert (recent.keep_first, recent.max_events) == (2, 7)


def test_from_config_rejects_unknown_configs() -> None:
    with pytest.raises(ValueError, match="Unknown condenser config"):
        Condenser.from_config(object(), llm_registry=None)  # type: ignore[arg-type]


@pytest.mark.parametrize(("keep_first", "max_size"), [(5, 10), (-1, 10), (3, 6)])
def test_window_constraints(keep_first: int, max_size: int) -> None:
    with pytest.raises(ValueError):
        AmortizedForgettingCondenser(max_size=max_size, keep_first=keep_first)


# --- simple view transforms ------------------------------------------------------------------


def test_noop_returns_the_view() -> None:
    view = _view(conversation(2))
    assert NoOpCondenser().condense(view) is view


def test_observation_masking_masks_only_old_observations() -> None:
    events = numbered(user("u"), run("a"), output("a"), run("b"), output("b"), output("c"))
    result = ObservationMaskingCondenser(attention_window=3).condense(_view(events))
    assert isinstance(result, View)
    kinds = [e.content if isinstance(e, AgentCondensationObservation) else e.id for e in result]
    # len 6, window 3: indexes 0..2 are outside the window; only the observation at 2 is masked.
    assert kinds == [0, 1, "<MASKED>", 3, 4, 5]


def _page(url: str) -> BrowserOutputObservation:
    return BrowserOutputObservation(content=f"page {url}", url=url, trigger_by_action="browse")


def test_browser_masking_keeps_the_latest_pages() -> None:
    events = numbered(user("u"), _page("a"), run("x"), _page("b"), _page("c"))
    result = BrowserOutputCondenser(attention_window=1).condense(_view(events))
    assert isinstance(result, View)
    texts = [getattr(e, "content", None) for e in result]
    assert texts == [
        "u",
        "Visited URL a\nContent omitted",
        None,
        "Visited URL b\nContent omitted",
        "page c",
    ]
    assert isinstance(result[4], BrowserOutputObservation)


def test_recent_keeps_head_and_tail() -> None:
    events = conversation(3)  # 10 events
    result = RecentEventsCondenser(keep_first=1, max_events=4).condense(_view(events))
    assert _ids(result) == [0, 7, 8, 9]


def test_recent_quirks_duplicate_the_head_of_short_views() -> None:
    events = numbered(user("u"), run("a"), output("a"))
    assert _ids(RecentEventsCondenser(keep_first=1, max_events=10).condense(_view(events))) == [
        0,
        0,
        1,
        2,
    ]
    # A tail length of 0 gives the whole view after the head.
    assert _ids(RecentEventsCondenser(keep_first=2, max_events=2).condense(_view(events))) == [
        0,
        1,
        0,
        1,
        2,
    ]


# --- rolling condensers ----------------------------------------------------------------------


def test_amortized_waits_until_the_view_is_too_big() -> None:
    condenser = AmortizedForgettingCondenser(max_size=10, keep_first=1)
    ten = _view(conversation(3))
    assert condenser.condense(ten) is ten


def test_amortized_forgets_a_range_leaving_head_and_recent_half() -> None:
    condenser = AmortizedForgettingCondenser(max_size=10, keep_first=1)
    result = condenser.condense(_view(conversation(4)))  # 12 events
    assert isinstance(result, Condensation)
    # keep event 0 and the last 10 // 2 - 1 = 4 events (8..11)
    assert result.action.forgotten_events_start_id == 1
    assert result.action.forgotten_events_end_id == 7
    assert result.action.summary is None


def test_amortized_answers_a_request_on_a_short_view() -> None:
    events = conversation(2) + numbered(CondensationRequestAction(), start=8)
    result = AmortizedForgettingCondenser(max_size=100, keep_first=1).condense(_view(events))
    assert isinstance(result, Condensation)
    assert result.action.forgotten  # something is forgotten, so the request is handled
    assert 0 not in result.action.forgotten


def test_conversation_window_only_acts_on_requests() -> None:
    view = _view(conversation(6))
    assert ConversationWindowCondenser().condense(view) is view


def test_conversation_window_keeps_essentials_and_recent_half() -> None:
    events = conversation(6) + numbered(CondensationRequestAction(), start=16)
    result = ConversationWindowCondenser().condense(_view(events))
    assert isinstance(result, Condensation)
    # 16 events in view, 4 essential (system, user, recall, its answer); keep 12 // 2 = 6
    # recent ones (10..15) and forget 4..9 as a range.
    assert result.action.forgotten_events_start_id == 4
    assert result.action.forgotten_events_end_id == 9
    assert result.action.forgotten_event_ids is None


def test_conversation_window_does_not_start_the_kept_part_with_an_observation() -> None:
    events = conversation(5) + numbered(CondensationRequestAction(), start=14)
    result = ConversationWindowCondenser().condense(_view(events))
    assert isinstance(result, Condensation)
    # keep 10 // 2 = 5 recent events (9..13), but 9 is an observation: it goes too.
    assert result.action.forgotten == [4, 5, 6, 7, 8, 9]


def test_conversation_window_lists_non_contiguous_ids() -> None:
    events = numbered(
        run("setup"),  # 0 (before the user message)
        output("s"),  # 1
        user("task"),  # 2
        run("a"),  # 3
        output("a"),  # 4
        run("b"),  # 5
        output("b"),  # 6
        CondensationRequestAction(),  # 7
    )
    result = ConversationWindowCondenser().condense(_view(events))
    assert isinstance(result, Condensation)
    # essential: the user message only; 6 others → keep 3 (4, 5, 6) minus leading obs 4.
    assert result.action.forgotten_event_ids == [0, 1, 3, 4]


def test_conversation_window_warns_when_only_dangling_observations_are_recent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    events = numbered(
        user("task"),  # 0
        output("a"),  # 1 (its action is gone)
        output("b"),  # 2
        CondensationRequestAction(),  # 3
    )
    with caplog.at_level(logging.WARNING, logger="openhands"):
        result = ConversationWindowCondenser().condense(_view(events))
    assert isinstance(result, Condensation)
    assert result.action.forgotten == [1, 2]
    assert "All recent events are dangling observations" in caplog.text


def test_conversation_window_without_user_message_forgets_nothing() -> None:
    events = numbered(run("a"), output("a"), CondensationRequestAction())
    result = ConversationWindowCondenser().condense(_view(events))
    assert isinstance(result, Condensation)
    assert result.action.forgotten_event_ids == []


def test_applying_the_window_condensation_gives_a_smaller_view() -> None:
    events = conversation(6) + numbered(CondensationRequestAction(), start=16)
    result = ConversationWindowCondenser().condense(_view(events))
    assert isinstance(result, Condensation)
    result.action.id = 17
    after = View.from_events([*events, result.action])
    assert [e.id for e in after] == [0, 1, 2, 3, 10, 11, 12, 13, 14, 15]
    assert not after.unhandled_condensation_request


# --- pipeline and state integration ----------------------------------------------------------


class _Tagging(NoOpCondenser):
    def __init__(self, tag: str) -> None:
        super().__init__()
        self.tag = tag

    def condense(self, view: View) -> View | Condensation:
        self.add_metadata("tag", self.tag)
        return view


def test_pipeline_feeds_views_forward_and_stops_at_a_condensation() -> None:
    events = conversation(4)  # 12 events
    tail = _Tagging("never")
    pipeline = CondenserPipeline(
        ObservationMaskingCondenser(attention_window=2),
        AmortizedForgettingCondenser(max_size=10, keep_first=1),
        tail,
    )
    state = State(history=events)
    result = pipeline.condensed_history(state)
    assert isinstance(result, Condensation)
    # The masked observations carry no id, so they are not part of the forgotten range.
    assert result.action.forgotten_events_start_id == 1
    assert "tag" not in str(state.extra_data.get(CONDENSER_METADATA_KEY, []))


def test_metadata_is_appended_to_the_state() -> None:
    state = State(history=conversation(1))
    condenser = _Tagging("first")
    assert isinstance(condenser.condensed_history(state), View)
    condenser.tag = "second"
    condenser.condensed_history(state)
    assert state.extra_data[CONDENSER_METADATA_KEY] == [{"tag": "first"}, {"tag": "second"}]
    NoOpCondenser().condensed_history(state)  # no metadata: nothing appended
    assert len(state.extra_data[CONDENSER_METADATA_KEY]) == 2


def test_condensed_history_uses_the_state_view() -> None:
    events = numbered(user("u"), run("a"), CondensationAction(forgotten_event_ids=[1]))
    result = NoOpCondenser().condensed_history(State(history=events))
    assert _ids(result) == [0]


# --- LLM metadata tags -----------------------------------------------------------------------


def test_llm_metadata_is_tagged_with_the_condenser_model_and_agent_condenser() -> None:
    state = State(session_id="sid")
    state.history = [user("hello")]

    plain = NoOpCondenser()
    plain.condensed_history(state)
    assert plain.llm_metadata["tags"] == ["model:unknown", "agent:condenser"]

    with_llm = NoOpCondenser()
    with_llm.llm = type("FakeLLM", (), {"config": type("Cfg", (), {"model": "m-1"})()})()  # type: ignore[attr-defined]
    CondenserPipeline(with_llm).condensed_history(state)
    assert with_llm.llm_metadata["tags"] == ["model:m-1", "agent:condenser"]
    assert with_llm.llm_metadata["session_id"] == "sid"
