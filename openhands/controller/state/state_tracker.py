"""StateTracker: the bookkeeping half of a controller (agent.md §8.7, §8.10).

It owns one agent's :class:`State` and everything that is counted or stored about it:
the history, the iteration and budget flags, the metrics snapshot attached to actions,
and saving. The controller decides *when*; the tracker knows *how*.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openhands.controller import policies
from openhands.controller.history import load_history
from openhands.controller.state.control_flags import BudgetControlFlag, IterationControlFlag
from openhands.controller.state.state import State
from openhands.events.serialization import event_to_trajectory

if TYPE_CHECKING:
    from openhands.events.event import Event
    from openhands.events.event_store import EventStore
    from openhands.llm.conversation_stats import ConversationStats
    from openhands.llm.metrics import Metrics
    from openhands.storage.files import FileStore

DELEGATE_SUFFIX = "-delegate"


class StateTracker:
    def __init__(
        self,
        sid: str | None,
        file_store: FileStore | None,
        user_id: str | None,
        headless_mode: bool = True,
    ) -> None:
        self.sid = sid
        self.file_store = file_store
        self.user_id = user_id
        # Recorded on fresh flags: limits are only extended in interactive sessions.
        self.headless_mode = headless_mode
        self.state: State = State(session_id=(sid or "").removesuffix(DELEGATE_SUFFIX))

    def set_initial_state(
        self,
        id: str,
        state: State | None,
        conversation_stats: ConversationStats | None,
        max_iterations: int,
        max_budget_per_task: float | None,
        confirmation_mode: bool = False,
    ) -> None:
        """Adopt a given (restored or delegate) state, or start a fresh one for ``id``.

        A fresh state gets an iteration flag of ``max_iterations`` and a budget flag only
        when ``max_budget_per_task`` is set (None or 0: no budget).
        """
        if state is not None:
            state.start_id = max(state.start_id, 0)
            state.conversation_stats = conversation_stats
            # The current settings decide, not those saved with an old conversation.
            state.confirmation_mode = confirmation_mode
            self.state = state
            return
        headless = self.headless_mode
        self.state = State(
            session_id=id.removesuffix(DELEGATE_SUFFIX),
            user_id=self.user_id,
            conversation_stats=conversation_stats,
            iteration_flag=IterationControlFlag(
                limit_increase_amount=max_iterations,
                current_value=0,
                max_value=max_iterations,
                headless_mode=headless,
            ),
            budget_flag=BudgetControlFlag(
                limit_increase_amount=max_budget_per_task,
                current_value=0.0,
                max_value=max_budget_per_task,
                headless_mode=headless,
            )
            if max_budget_per_task
            else None,
            confirmation_mode=confirmation_mode,
            start_id=0,
        )

    # --- history -----------------------------------------------------------------------------

    def load_history(self, event_store: EventStore) -> None:
        """The agent's history from the stream (delegates' inner events left out)."""
        self.state.history = load_history(event_store, self.state.start_id, self.state.end_id)

    def add_history(self, event: Event) -> None:
        """Append ``event`` unless it is bookkeeping (state changes, null events, hidden)."""
        if policies.is_history_event(event):
            self.state.history.append(event)

    def close(self, event_stream: EventStore) -> None:
        """The history becomes the full record, delegates' events included (trajectories)."""
        self.state.history = load_history(
            event_stream, self.state.start_id, self.state.end_id, include_delegate_events=True
        )

    def get_trajectory(self, include_screenshots: bool = False) -> list[dict[str, Any]]:
        return [event_to_trajectory(e, include_screenshots) for e in self.state.history]

    # --- limits and metrics ------------------------------------------------------------------

    def sync_budget_flag_with_metrics(self) -> None:
        """The budget flag counts what every LLM of the conversation has cost so far."""
        stats = self.state.conversation_stats
        if self.state.budget_flag is not None and stats is not None:
            self.state.budget_flag.current_value = stats.get_combined_metrics().accumulated_cost

    def run_control_flags(self) -> None:
        """Count one step; raises RuntimeError when the iteration or budget limit is reached.

        The iteration is counted before the budget is checked.
        """
        self.state.iteration_flag.step()
        if self.state.budget_flag is not None:
            self.state.budget_flag.step()

    def maybe_increase_control_flags_limits(self, headless_mode: bool) -> None:
        """After ERROR → RUNNING: make room for more work where the rules allow it."""
        self.state.iteration_flag.increase_limit(headless_mode)
        if self.state.budget_flag is not None:
            self.state.budget_flag.increase_limit(headless_mode)

    def get_metrics_snapshot(self) -> Metrics:
        """Accumulated cost and tokens (all LLMs) plus the budget, as attached to actions."""
        return self.state.to_llm_metrics()

    # --- persistence ---------------------------------------------------------------------------

    def save_state(self) -> None:
        if self.sid and self.file_store is not None:
            self.state.save_to_session(self.sid, self.file_store, self.user_id)
