from dataclasses import dataclass, field
from typing import Any

from openhands.core.schema import ActionType
from openhands.events.action.action import Action
from openhands.events.event import RecallType


@dataclass
class ChangeAgentStateAction(Action):
    """Ask the controller to move to ``agent_state`` (an AgentState value)."""

    agent_state: str
    thought: str = ""

    action = ActionType.CHANGE_AGENT_STATE.value

    @property
    def message(self) -> str:
        return f"Agent state changed to {self.agent_state}"


@dataclass
class AgentThinkAction(Action):
    thought: str = ""

    action = ActionType.THINK.value

    @property
    def message(self) -> str:
        return f"I am thinking...: {self.thought}"


@dataclass
class AgentFinishAction(Action):
    final_thought: str = ""
    outputs: dict[str, Any] = field(default_factory=dict)
    thought: str = ""

    action = ActionType.FINISH.value

    @property
    def message(self) -> str:
        return self.thought if self.thought else "All done! What's next on the agenda?"


@dataclass
class AgentRejectAction(Action):
    outputs: dict[str, Any] = field(default_factory=dict)
    thought: str = ""

    action = ActionType.REJECT.value

    @property
    def message(self) -> str:
        text = "Task is rejected by the agent."
        if "reason" in self.outputs:
            text += f" Reason: {self.outputs['reason']}"
        return text


@dataclass
class AgentDelegateAction(Action):
    agent: str
    inputs: dict[str, Any]
    thought: str = ""

    action = ActionType.DELEGATE.value

    @property
    def message(self) -> str:
        return f"I'm asking {self.agent} for help with this task."


@dataclass
class RecallAction(Action):
    """Ask memory for workspace context or knowledge microagents matching ``query``."""

    recall_type: RecallType
    query: str = ""
    thought: str = ""

    action = ActionType.RECALL.value

    @property
    def message(self) -> str:
        return f"Retrieving content for: {self.query[:50]}"


@dataclass
class CondensationAction(Action):
    """Forget a set of events (by id list or inclusive range), optionally leaving a summary."""

    forgotten_event_ids: list[int] | None = None
    forgotten_events_start_id: int | None = None
    forgotten_events_end_id: int | None = None
    summary: str | None = None
    summary_offset: int | None = None

    action = ActionType.CONDENSATION.value

    def __post_init__(self) -> None:
        by_ids = self.forgotten_event_ids is not None
        by_range = (
            self.forgotten_events_start_id is not None and self.forgotten_events_end_id is not None
        )
        if by_ids == by_range:
            raise ValueError(
                "CondensationAction needs either forgotten_event_ids or both "
                "forgotten_events_start_id and forgotten_events_end_id, not both or neither"
            )
        if (self.summary is None) != (self.summary_offset is None):
            raise ValueError("summary and summary_offset must be set together")

    @property
    def forgotten(self) -> list[int]:
        if self.forgotten_event_ids is not None:
            return list(self.forgotten_event_ids)
        assert self.forgotten_events_start_id is not None
        assert self.forgotten_events_end_id is not None
        return list(range(self.forgotten_events_start_id, self.forgotten_events_end_id + 1))

    @property
    def message(self) -> str:
        if self.summary:
            return f"Summary: {self.summary}"
        return f"Condenser is dropping the events: {self.forgotten}."


@dataclass
class CondensationRequestAction(Action):
    action = ActionType.CONDENSATION_REQUEST.value

    @property
    def message(self) -> str:
        return "Requesting a condensation of the conversation history."


@dataclass
class TaskTrackingAction(Action):
    command: str = "view"
    task_list: list[dict[str, Any]] = field(default_factory=list)
    thought: str = ""

    action = ActionType.TASK_TRACKING.value

    @property
    def message(self) -> str:
        n = len(self.task_list)
        if n == 0:
            return "Clearing the task list."
        if n == 1:
            return "Managing 1 task item."
        return f"Managing {n} task items."
