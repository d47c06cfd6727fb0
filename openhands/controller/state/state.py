"""Everything the controller knows about one (sub-)conversation.

``history`` is rebuilt from the event stream on every load, so it is never persisted;
the rest is saved as versioned JSON (see :mod:`openhands.controller.state.persistence`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
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


# Fields of older States. They load from old saves and are never written again.
DEPRECATED_FIELDS = (
    "iteration",
    "local_iteration",
    "max_iterations",
    "traffic_control_state",
    "local_metrics",
    "delegates",
)
# Derived caches: rebuilt from the history, never saved.
_CACHE_FIELDS = ("_view", "_view_history_len")


class TrafficControlState(str, Enum):
    """Kept only so that old saved states holding ``traffic_control_state`` still load."""

    NORMAL = "normal"
    THROTTLING = "throttling"
    PAUSED = "paused"


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

    # Deprecated (see DEPRECATED_FIELDS): loaded from old saves, dropped on save.
    iteration: int | None = None
    local_iteration: int | None = None
    max_iterations: int | None = None
    traffic_control_state: TrafficControlState | None = None
    local_metrics: Metrics | None = None
    delegates: dict[Any, Any] | None = None

    # The condenser view, cached by the history length it was built from.
    _view: View | None = field(default=None, init=False, repr=False, compare=False)
    _view_history_len: int = field(default=-1, init=False, repr=False, compare=False)

    # --- persistence ----------------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle keeps: no history (rebuilt from the stream), no view cache, no
        deprecated fields, and no conversation stats (they are saved on their own)."""
        attrs = dict(self.__dict__)
        attrs["history"] = []
        attrs["conversation_stats"] = None
        for name in DEPRECATED_FIELDS + _CACHE_FIELDS:
            attrs.pop(name, None)
        return attrs

    def __setstate__(self, attrs: dict[str, Any]) -> None:
        """Load a pickle of this or an older State (counters become control flags)."""
        fresh = State()
        self.__dict__.update(fresh.__dict__)
        self.__dict__.update(upgrade_legacy_attrs(attrs))

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


def upgrade_legacy_attrs(attrs: dict[str, Any]) -> dict[str, Any]:
    """An old State's attributes in today's shape (a new dict; ``attrs`` is left alone).

    States saved before the control flags had plain counters: ``iteration`` and
    ``max_iterations`` become the ``iteration_flag``; a budget kept on the metrics becomes
    the ``budget_flag``. The history and the view cache are never taken from a save.
    """
    upgraded = {k: v for k, v in attrs.items() if k not in _CACHE_FIELDS}
    upgraded["history"] = []
    if not isinstance(upgraded.get("iteration_flag"), IterationControlFlag):
        if upgraded.get("iteration") is not None or upgraded.get("max_iterations") is not None:
            limit = int(upgraded.get("max_iterations") or DEFAULT_ITERATION_LIMIT)
            upgraded["iteration_flag"] = IterationControlFlag(
                limit_increase_amount=limit,
                current_value=int(upgraded.get("iteration") or 0),
                max_value=limit,
            )
        else:
            upgraded.pop("iteration_flag", None)
    for name in ("metrics", "parent_metrics_snapshot"):
        _fix_legacy_metrics(upgraded.get(name))
    metrics = upgraded.get("metrics")
    if "budget_flag" not in upgraded and isinstance(metrics, Metrics):
        # Saved before the budget flag existed: the budget was kept on the metrics.
        budget = metrics.max_budget_per_task
        if budget:
            upgraded["budget_flag"] = BudgetControlFlag(
                limit_increase_amount=budget,
                current_value=metrics.accumulated_cost,
                max_value=budget,
            )
    return upgraded


def _fix_legacy_metrics(metrics: Any) -> None:
    """The reference keeps the budget in ``_max_budget_per_task``; ours has no underscore."""
    if isinstance(metrics, Metrics) and "_max_budget_per_task" in vars(metrics):
        metrics.max_budget_per_task = vars(metrics).pop("_max_budget_per_task")
