"""The pure decisions of the controller."""

from __future__ import annotations

import pytest

from openhands.controller import policies
from openhands.controller.history import drop_delegate_inner_events
from openhands.core.schema import AgentState
from openhands.events.action import (
    Action,
    ActionConfirmationStatus,
    ActionSecurityRisk,
    AgentDelegateAction,
    AgentFinishAction,
    AgentRejectAction,
    AgentThinkAction,
    BrowseInteractiveAction,
    BrowseURLAction,
    ChangeAgentStateAction,
    CmdRunAction,
    CondensationAction,
    CondensationRequestAction,
    FileEditAction,
    FileReadAction,
    FileWriteAction,
    IPythonRunCellAction,
    MCPAction,
    MessageAction,
    NullAction,
    RecallAction,
    SystemMessageAction,
    TaskTrackingAction,
)
from openhands.events.event import Event, EventSource, RecallType
from openhands.events.observation import (
    AgentDelegateObservation,
    AgentStateChangedObservation,
    AgentThinkObservation,
    CmdOutputObservation,
    ErrorObservation,
    NullObservation,
    RecallObservation,
    UserRejectObservation,
)
from openhands.events.tool import ToolCallMetadata


def _from(event: Event, source: EventSource, cause: int | None = None) -> Event:
    event.source = source
    event.cause = cause
    return event


RUNNING = AgentState.RUNNING

SHOULD_STEP_TABLE = [
    (_from(MessageAction("hi"), EventSource.USER), RUNNING, True),
    (_from(MessageAction("hi"), EventSource.AGENT), RUNNING, True),
    (
        _from(MessageAction("?", wait_for_response=True), EventSource.AGENT),
        AgentState.AWAITING_USER_INPUT,
        False,
    ),
    (AgentDelegateAction(agent="X", inputs={}), RUNNING, True),
    (CondensationAction(forgotten_event_ids=[1]), RUNNING, True),
    (CondensationRequestAction(), RUNNING, True),
    (AgentThinkAction("hmm"), RUNNING, False),
    (RecallAction(recall_type=RecallType.KNOWLEDGE), RUNNING, False),
    (AgentFinishAction(), RUNNING, False),
    (CmdRunAction("ls"), RUNNING, False),
    (ChangeAgentStateAction("paused"), RUNNING, False),
    (SystemMessageAction("sys"), RUNNING, False),
    (_from(NullObservation(""), EventSource.ENVIRONMENT, cause=5), RUNNING, True),
    (_from(NullObservation(""), EventSource.ENVIRONMENT, cause=0), RUNNING, False),
    (_from(NullObservation(""), EventSource.ENVIRONMENT), RUNNING, False),
    (AgentStateChangedObservation("", "running"), RUNNING, False),
    (RecallObservation("", recall_type=RecallType.KNOWLEDGE), RUNNING, True),
    (ErrorObservation("x"), RUNNING, True),
    (AgentThinkObservation("x"), RUNNING, True),
    (AgentDelegateObservation(content="x", outputs={}), RUNNING, True),
    (CmdOutputObservation(content="", command="ls"), RUNNING, True),
    (UserRejectObservation("no"), RUNNING, True),
]


@pytest.mark.parametrize(("event", "state", "expected"), SHOULD_STEP_TABLE)
def test_should_step_table(event: Event, state: AgentState, expected: bool) -> None:
    assert policies.should_step(event, state, has_delegate=False) is expected


@pytest.mark.parametrize(("event", "state", "expected"), SHOULD_STEP_TABLE)
def test_never_step_while_a_delegate_is_active(
    event: Event, state: AgentState, expected: bool
) -> None:
    assert policies.should_step(event, state, has_delegate=True) is False


def test_history_filter() -> None:
    assert not policies.is_history_event(NullAction())
    assert not policies.is_history_event(NullObservation(""))
    assert not policies.is_history_event(ChangeAgentStateAction("running"))
    assert not policies.is_history_event(AgentStateChangedObservation("", "running"))
    assert not policies.is_history_event(CmdRunAction("ls", hidden=True))
    assert policies.is_history_event(CmdRunAction("ls"))
    assert policies.is_history_event(MessageAction("hi"))
    assert policies.is_history_event(RecallAction(recall_type=RecallType.KNOWLEDGE))


RUNNABLE = [
    CmdRunAction("ls"),
    IPythonRunCellAction("1"),
    BrowseURLAction("http://x"),
    BrowseInteractiveAction("goto('x')"),
    FileReadAction("/a"),
    FileWriteAction("/a", "x"),
    FileEditAction("/a"),
    MCPAction("tool"),
]


@pytest.mark.parametrize("action", RUNNABLE, ids=lambda a: type(a).__name__)
def test_every_runnable_action_is_gated(action: Action) -> None:
    assert policies.is_gated(action)


@pytest.mark.parametrize(
    "action",
    [
        MessageAction("x"),
        AgentFinishAction(),
        AgentRejectAction(),
        AgentThinkAction(),
        TaskTrackingAction(),
        AgentDelegateAction(agent="a", inputs={}),
    ],
    ids=lambda a: type(a).__name__,
)
def test_non_runnable_actions_are_not_gated(action: Action) -> None:
    assert not policies.is_gated(action)


@pytest.mark.parametrize(
    ("risk", "has_analyzer", "cli", "expected"),
    [
        (ActionSecurityRisk.UNKNOWN, False, False, True),
        (ActionSecurityRisk.LOW, False, False, True),
        (ActionSecurityRisk.HIGH, True, False, True),
        (ActionSecurityRisk.MEDIUM, True, False, False),
        (ActionSecurityRisk.LOW, True, False, False),
        (ActionSecurityRisk.UNKNOWN, True, False, True),
        (ActionSecurityRisk.LOW, True, True, True),
    ],
)
def test_needs_confirmation(
    risk: ActionSecurityRisk, has_analyzer: bool, cli: bool, expected: bool
) -> None:
    assert policies.needs_confirmation(risk, has_analyzer, cli) is expected


def test_only_commands_and_ipython_carry_a_confirmation_state() -> None:
    carrying = [type(a).__name__ for a in RUNNABLE if policies.carries_confirmation_state(a)]
    assert carrying == ["CmdRunAction", "IPythonRunCellAction"]


def test_confirmation_transitions() -> None:
    assert policies.confirmation_status_for(AgentState.USER_CONFIRMED) == (
        ActionConfirmationStatus.CONFIRMED
    )
    assert policies.confirmation_status_for(AgentState.USER_REJECTED) == (
        ActionConfirmationStatus.REJECTED
    )
    assert policies.confirmation_status_for(AgentState.RUNNING) is None
    assert policies.state_after_pending_observation(AgentState.USER_CONFIRMED) == RUNNING
    assert policies.state_after_pending_observation(AgentState.USER_REJECTED) == (
        AgentState.AWAITING_USER_INPUT
    )
    assert policies.state_after_pending_observation(RUNNING) is None


def test_delegate_receives_events_until_done() -> None:
    assert policies.delegate_receives_events(RUNNING, "")
    assert policies.delegate_receives_events(AgentState.AWAITING_USER_INPUT, "")
    for done in (AgentState.FINISHED, AgentState.ERROR, AgentState.REJECTED):
        assert not policies.delegate_receives_events(done, "")
    # ...except when it ran out of (shared) iterations: it stays in charge.
    assert policies.delegate_receives_events(
        AgentState.ERROR,
        "RuntimeError: Agent reached maximum iteration. Current iteration: 5, max iteration: 5",
    )


def test_delegate_result_content() -> None:
    text = policies.delegate_result_content(
        "Helper", AgentState.FINISHED, {"a": 1, "metrics": {"x": 1}, "b": "two"}
    )
    assert text == "Delegated agent finished with result:\n\nHelper finishes task with a: 1, b: two"
    assert policies.delegate_result_content("Helper", AgentState.REJECTED, {}).endswith(
        "Helper finishes task with "
    )
    assert policies.delegate_result_content("Helper", AgentState.ERROR, {"a": 1}) == (
        "Delegated agent finished with result:\n\nHelper encountered an error during execution."
    )


def _metadata(call_id: str) -> ToolCallMetadata:
    return ToolCallMetadata(
        function_name="f", tool_call_id=call_id, model_response={}, total_calls_in_response=1
    )


def test_not_executed_notice_only_for_unanswered_published_tool_actions() -> None:
    action = CmdRunAction("ls")
    action.id = 7
    action.tool_call_metadata = _metadata("c1")
    assert policies.needs_not_executed_notice(action, [])

    by_cause = ErrorObservation("x")
    by_cause.cause = 7
    assert not policies.needs_not_executed_notice(action, [by_cause])

    by_metadata = ErrorObservation("x")
    by_metadata.tool_call_metadata = _metadata("c1")
    assert not policies.needs_not_executed_notice(action, [by_metadata])

    other = ErrorObservation("x")
    other.tool_call_metadata = _metadata("c2")
    assert policies.needs_not_executed_notice(action, [other, ErrorObservation("no metadata")])

    held_back = CmdRunAction("ls")
    held_back.confirmation_state = ActionConfirmationStatus.AWAITING_CONFIRMATION
    assert not policies.needs_not_executed_notice(held_back, [])
    # Not awaiting anything and unanswered: it still gets its notice, published or not.
    assert policies.needs_not_executed_notice(CmdRunAction("ls"), [])

    recall = RecallAction(recall_type=RecallType.KNOWLEDGE)
    recall.id = 3
    assert not policies.needs_not_executed_notice(recall, [])


def test_not_executed_notice_texts() -> None:
    assert policies.not_executed_notice(AgentState.STOPPED) == (
        "Stop button pressed. The action has not been executed.",
        "AGENT_ERROR$ERROR_ACTION_NOT_EXECUTED_STOPPED",
    )
    assert policies.not_executed_notice(AgentState.ERROR)[1] == (
        "AGENT_ERROR$ERROR_ACTION_NOT_EXECUTED_ERROR"
    )


def _with_id(event: Event, event_id: int) -> Event:
    event.id = event_id
    return event


def test_delegate_inner_events_are_dropped_with_nesting() -> None:
    events = [
        _with_id(MessageAction("task"), 0),
        _with_id(AgentDelegateAction(agent="A", inputs={}), 1),
        _with_id(CmdRunAction("inner a"), 2),
        _with_id(AgentDelegateAction(agent="B", inputs={}), 3),
        _with_id(CmdRunAction("inner b"), 4),
        _with_id(AgentDelegateObservation(content="b done", outputs={}), 5),
        _with_id(AgentDelegateObservation(content="a done", outputs={}), 6),
        _with_id(AgentFinishAction(), 7),
        _with_id(AgentDelegateAction(agent="C", inputs={}), 8),
        _with_id(CmdRunAction("still running"), 9),
    ]
    kept = [e.id for e in drop_delegate_inner_events(events)]
    # An unfinished delegation (8) keeps its events.
    assert kept == [0, 1, 6, 7, 8, 9]
