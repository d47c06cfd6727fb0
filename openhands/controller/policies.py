"""The controller's decisions, as pure functions of events and flags (agent.md §8.3, §8.8).

Nothing here touches the stream, the agent or the clock, so each rule is tested on its own
and the controller's methods read as "ask the policy, then act".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from openhands.core.schema import AgentState
from openhands.events.action import (
    Action,
    ActionConfirmationStatus,
    ActionSecurityRisk,
    AgentDelegateAction,
    ChangeAgentStateAction,
    CondensationAction,
    CondensationRequestAction,
    MessageAction,
    NullAction,
    RecallAction,
)
from openhands.events.event import Event, EventSource
from openhands.events.observation import (
    AgentStateChangedObservation,
    NullObservation,
    Observation,
    RecallObservation,
)

# Bookkeeping events that never enter an agent's history.
NON_HISTORY_TYPES: tuple[type[Event], ...] = (
    NullAction,
    NullObservation,
    ChangeAgentStateAction,
    AgentStateChangedObservation,
)

# Agent actions that make the controller step again right away.
_STEPPING_ACTIONS: tuple[type[Action], ...] = (
    AgentDelegateAction,
    CondensationAction,
    CondensationRequestAction,
)


def is_history_event(event: Event) -> bool:
    """False for bookkeeping events and hidden ones (only commands and their outputs hide)."""
    return not isinstance(event, NON_HISTORY_TYPES) and not getattr(event, "hidden", False)


def should_step(event: Event, agent_state: AgentState, has_delegate: bool) -> bool:
    """Whether ``event`` (already handled) makes the controller ask the agent for more.

    ``agent_state`` is the state *after* the event was handled, so an agent message that
    waits for a response has already moved the agent to AWAITING_USER_INPUT.
    """
    if has_delegate:
        return False
    if isinstance(event, Action):
        if isinstance(event, MessageAction):
            if event.source == EventSource.USER:
                return True
            return agent_state != AgentState.AWAITING_USER_INPUT
        return isinstance(event, _STEPPING_ACTIONS)
    if isinstance(event, NullObservation):
        return event.cause is not None and event.cause > 0
    if isinstance(event, AgentStateChangedObservation):
        return False
    return isinstance(event, Observation)


# --- confirmation mode ---------------------------------------------------------------------


def should_step_on_resume(history: Sequence[Event]) -> bool:
    """After PAUSED → RUNNING with nothing pending: is it the agent's turn?

    It is when the newest history event answers the agent (an observation) or is the
    user's message. The reference only steps on the next event, so a step that finished
    while paused left the agent idle after Resume.
    """
    for event in reversed(history):
        if isinstance(event, (RecallAction, RecallObservation)):
            continue
        if isinstance(event, Observation):
            return True
        return isinstance(event, MessageAction) and event.source == EventSource.USER
    return False


def is_running_in_sandbox(pending: Action | None, state: AgentState) -> bool:
    """Whether ``pending`` was handed to the runtime and its observation is still to come.

    Not a recall (memory answers those), and not an action held for the user's
    confirmation: that one only runs after a yes, so nothing is on its way.
    """
    if pending is None or isinstance(pending, RecallAction) or not pending.runnable:
        return False
    if pending.id == Event.INVALID_ID or state == AgentState.AWAITING_USER_CONFIRMATION:
        return False
    status = getattr(pending, "confirmation_state", None)
    return status != ActionConfirmationStatus.AWAITING_CONFIRMATION


def is_gated(action: Action) -> bool:
    """Actions that wait for the user's approval in confirmation mode.

    Every runnable action is gated (the reference gates only five classes and lets
    writes, URL browsing and MCP calls through).
    """
    return action.runnable


def needs_confirmation(risk: ActionSecurityRisk, has_analyzer: bool, cli_mode: bool) -> bool:
    """For a gated action in confirmation mode: must the user approve it?

    Without an analyzer every action asks (its risk is unknown). With one, only HIGH
    risk asks, and so does UNKNOWN: an analyzer that could not judge an action must not
    wave it through. The CLI always asks.
    """
    if cli_mode or not has_analyzer:
        return True
    return risk in (ActionSecurityRisk.HIGH, ActionSecurityRisk.UNKNOWN)


def carries_confirmation_state(action: Action) -> bool:
    """True when the action's wire form has a ``confirmation_state`` (commands and IPython).

    Only those can be published while awaiting confirmation: for the others the flag
    would be lost on the way to the runtime, which would then run them.
    """
    return any(f.name == "confirmation_state" for f in dataclasses.fields(action))


def confirmation_status_for(state: AgentState) -> ActionConfirmationStatus | None:
    """The status a pending action gets when the agent moves to ``state`` (if any)."""
    if state == AgentState.USER_CONFIRMED:
        return ActionConfirmationStatus.CONFIRMED
    if state == AgentState.USER_REJECTED:
        return ActionConfirmationStatus.REJECTED
    return None


def state_after_pending_observation(state: AgentState) -> AgentState | None:
    """Where the agent goes when the pending action's observation arrives (None: stay)."""
    if state == AgentState.USER_CONFIRMED:
        return AgentState.RUNNING
    if state == AgentState.USER_REJECTED:
        return AgentState.AWAITING_USER_INPUT
    return None


def describe_held_action(action: Action) -> str:
    """A line telling the user what a held-back action would do (shown with the prompt)."""
    summary = action.message or f"{action.action} {getattr(action, 'path', '')}".strip()
    return f"Waiting for confirmation: {summary}"


# --- delegation --------------------------------------------------------------------------------

_DELEGATE_DONE_STATES = frozenset({AgentState.FINISHED, AgentState.ERROR, AgentState.REJECTED})
ITERATION_LIMIT_ERROR_PREFIX = "RuntimeError: Agent reached maximum iteration."


def delegate_receives_events(state: AgentState, last_error: str) -> bool:
    """Whether the parent still forwards events to its delegate.

    A delegate that hit the shared iteration limit stays in charge, so that a user who
    lets the conversation continue continues the delegate's work.
    """
    return state not in _DELEGATE_DONE_STATES or ITERATION_LIMIT_ERROR_PREFIX in last_error


def delegate_result_content(agent_name: str, state: AgentState, outputs: dict) -> str:
    """The content of the AgentDelegateObservation the parent receives."""
    if state in (AgentState.FINISHED, AgentState.REJECTED):
        shown = ", ".join(f"{key}: {value}" for key, value in outputs.items() if key != "metrics")
        result = f"{agent_name} finishes task with {shown}"
    else:
        result = f"{agent_name} encountered an error during execution."
    return "Delegated agent finished with result:\n\n" + result


# --- actions left unexecuted on STOP / ERROR ------------------------------------------------

NOT_EXECUTED_STOPPED = (
    "Stop button pressed. The action has not been executed.",
    "AGENT_ERROR$ERROR_ACTION_NOT_EXECUTED_STOPPED",
)
NOT_EXECUTED_ERROR = (
    # 0.59's wording, which clients and harnesses may match on.
    "The action has not been executed due to a runtime error. The runtime system may have "
    "crashed and restarted due to resource constraints. Any previously established system "
    "state, dependencies, or environment variables may have been lost.",
    "AGENT_ERROR$ERROR_ACTION_NOT_EXECUTED_ERROR",
)


def not_executed_notice(state: AgentState) -> tuple[str, str]:
    """(content, error_id) of the ErrorObservation for a pending action dropped by ``state``."""
    return NOT_EXECUTED_STOPPED if state == AgentState.STOPPED else NOT_EXECUTED_ERROR


def needs_not_executed_notice(pending: Action, history: Sequence[Event]) -> bool:
    """A published tool action that no observation has answered yet.

    Answered means an observation caused by it, or one carrying its tool call metadata.
    (The reference's check matched any metadata-less observation for a metadata-less
    action, so it rarely fired for those.)
    """
    if not hasattr(pending, "tool_call_metadata"):
        return False  # the reference's presence check (agent.md §8.5)
    held_back = (
        pending.id == Event.INVALID_ID
        and getattr(pending, "confirmation_state", None)
        == ActionConfirmationStatus.AWAITING_CONFIRMATION
    )
    if held_back:
        return False  # awaiting confirmation, never published: nothing ran, nothing to answer
    if not pending.runnable and pending.tool_call_metadata is None:
        return False  # e.g. a RecallAction: memory answers it or not, nothing ran
    metadata = pending.tool_call_metadata
    for event in history:
        if not isinstance(event, Observation):
            continue
        if event.cause == pending.id:
            return False
        if metadata is not None and event.tool_call_metadata == metadata:
            return False
    return True
