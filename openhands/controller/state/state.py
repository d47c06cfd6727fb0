"""Everything the controller knows about one (sub-)conversation.

``history`` is rebuilt from the event stream on every load, so it is never persisted;
the rest is saved as versioned JSON (see :mod:`openhands.controller.state.persistence`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from openhands.controller.state.control_flags import BudgetControlFlag, IterationControlFlag
from openhands.core.schema import AgentState
from openhands.events.action import AgentFinishAction, MessageAction
from openhands.events.event import Event, EventSource
from openhands.llm.metrics import Metrics

if TYPE_CHECKING:
    from openhands.llm.conversation_stats import ConversationStats
    from openhands.memory.view import View
    from openhands.storage.files import FileStore

DEFAULT_ITERATION_LIMIT = 100

# The states worth remembering as `resume_state` when a conversation is loaded again.
RESUMABLE_STATES = frozenset(
    {
        AgentState.RUNNING,
        AgentState.PAUSED,
        AgentState.AWAITING_USER_INPUT,
        AgentState.FINISHED,
    }
)


def _default_iteration_flag() -> IterationControlFlag:
    return IterationControlFlag(
        limit_increase_amount=DEFAULT_ITERATION_LIMIT,
        current_value=0,
        max_value=DEFAULT_ITERATION_LIMIT,
    )


@dataclass
class State:
    session_id: str = ""
    user_id: str | None = None
    iteration_flag: IterationControlFlag = field(default_factory=_default_iteration_flag)
    conversation_stats: ConversationStats | None = None
    budget_flag: BudgetControlFlag | None = None
    confirmation_mode: bool = False
    history: list[Event] = field(default_factory=list)
    inputs: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    agent_state: AgentState = AgentState.LOADING
    resume_state: AgentState | None = None
    # 0 for the root agent, +1 per level of delegation.
    delegate_level: int = 0
    # The slice of the event stream that belongs to this agent (-1 = unset / up to latest).
    start_id: int = -1
    end_id: int = -1
    # A delegate's copy of the parent's metrics when it started (for local metrics).
    parent_metrics_snapshot: Metrics | None = None
    parent_iteration: int = DEFAULT_ITERATION_LIMIT
    extra_data: dict[str, Any] = field(default_factory=dict)
    last_error: str = ""
    metrics: Metrics = field(default_factory=Metrics)

    # The condenser view, cached by the history length it was built from.
    _view: View | None = field(default=None, init=False, repr=False, compare=False)
    _view_history_len: int = field(default=-1, init=False, repr=False, compare=False)

    # --- persistence ----------------------------------------------------------------------

    def save_to_session(self, sid: str, file_store: FileStore, user_id: str | None) -> None:
        """Write the state (without history) and the conversation stats to the store."""
        from openhands.controller.state import persistence

        persistence.save_state(self, sid, file_store, user_id)
        if self.conversation_stats is not None:
            self.conversation_stats.save_metrics()

    @staticmethod
    def restore_from_session(sid: str, file_store: FileStore, user_id: str | None = None) -> State:
        """Load a saved state. Raises FileNotFoundError when there is none.

        The loaded state starts in LOADING; what it was doing is kept in ``resume_state``
        when that is worth resuming. Its history is empty until the controller loads it.
        """
        from openhands.controller.state import persistence

        state = persistence.load_state(sid, file_store, user_id)
        state.resume_state = state.agent_state if state.agent_state in RESUMABLE_STATES else None
        state.agent_state = AgentState.LOADING
        return state

    # --- views of the history -------------------------------------------------------------

    @property
    def view(self) -> View:
        """The history as the condenser sees it (forgotten events removed, summary inserted)."""
        from openhands.memory.view import View

        if self._view is None or self._view_history_len != len(self.history):
            self._view = View.from_events(self.history)
            self._view_history_len = len(self.history)
        return self._view

    def get_current_user_intent(self) -> tuple[str | None, list[str] | None]:
        """The user message that opened the current task and its images.

        That is the earliest user message after the most recent AgentFinishAction (or in
        the whole view when the agent never finished). (None, None) if there is none.
        """
        intent: MessageAction | None = None
        for event in reversed(list(self.view)):
            if isinstance(event, AgentFinishAction) and intent is not None:
                break
            if isinstance(event, MessageAction) and event.source == EventSource.USER:
                intent = event
        if intent is None:
            return None, None
        return intent.content, intent.image_urls

    def get_last_agent_message(self) -> MessageAction | None:
        return self._last_message_from(EventSource.AGENT)

    def get_last_user_message(self) -> MessageAction | None:
        return self._last_message_from(EventSource.USER)

    def _last_message_from(self, source: EventSource) -> MessageAction | None:
        for event in reversed(list(self.view)):
            if isinstance(event, MessageAction) and event.source == source:
                return event
        return None

    # --- counters and metrics --------------------------------------------------------------

    def get_local_step(self) -> int:
        """Iterations done by this (delegate) agent alone."""
        return self.iteration_flag.current_value - self.parent_iteration

    def get_local_metrics(self) -> Metrics:
        """Metrics accrued since this delegate started (all metrics for the root agent)."""
        if self.parent_metrics_snapshot is None:
            return self.metrics
        return self.metrics.diff(self.parent_metrics_snapshot)

    def to_llm_metrics(self) -> Metrics:
        """The snapshot attached to each published agent action as ``llm_metrics``.

        Accumulated cost and tokens over every LLM of the conversation, and the budget.
        """
        snapshot = Metrics()
        if self.conversation_stats is not None:
            combined = self.conversation_stats.get_combined_metrics()
            snapshot.accumulated_cost = combined.accumulated_cost
            snapshot.accumulated_token_usage = combined.accumulated_token_usage.model_copy()
        if self.budget_flag is not None:
            snapshot.max_budget_per_task = self.budget_flag.max_value
        return snapshot

    def to_llm_metadata(self, model_name: str, agent_name: str) -> dict[str, Any]:
        """Tags passed along with LLM calls (e.g. for tracing proxies)."""
        return {
            "session_id": self.session_id,
            "trace_version": "0.59.0",
            "trace_user_id": self.user_id,
            "tags": [f"model:{model_name}", f"agent:{agent_name}"],
        }
