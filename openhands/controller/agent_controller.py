"""AgentController: drives one agent over an event stream (agent.md §8).

The controller listens to the stream, keeps the agent's :class:`State`, and decides
when to ask the agent for its next action. Each decision lives in a pure policy
(`policies`, `error_policy`, `stuck`); this class only applies them:

    on_event → history → handle action / observation → should_step? → _step
    _step    → limits → replay or agent.step → confirmation → pending → publish

Concurrency: events are handled on the stream's callback thread, where a step (and the
agent's blocking LLM call) runs inline, one at a time. The public coroutines
(`set_agent_state_to`, `close`, `start_delegate`) are for callers on an event loop; they
and the callback thread share one synchronous core, so a transition made while handling
an event is applied before the next decision is taken. `step()` schedules a step as an
asyncio task (the agent then runs in a worker thread). A delegate controller does not
subscribe; its parent forwards events to it. Bookkeeping (state, history, limits,
saving) lives in the :class:`StateTracker`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import logging
import threading
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, Final

from openhands.controller import policies
from openhands.controller.agent import Agent
from openhands.controller.error_policy import (
    RECOVERABLE_AGENT_ERRORS,
    react_to_exception,
    reportable_exception,
)
from openhands.controller.replay import ReplayManager
from openhands.controller.state.state import State
from openhands.controller.state.state_tracker import DELEGATE_SUFFIX, StateTracker
from openhands.controller.stuck import StuckDetector
from openhands.core.exceptions import AgentStuckInLoopError, LLMNoActionError
from openhands.core.logger import openhands_logger as logger
from openhands.core.schema import AgentState
from openhands.events.action import (
    Action,
    ActionConfirmationStatus,
    ActionSecurityRisk,
    AgentDelegateAction,
    AgentFinishAction,
    AgentRejectAction,
    ChangeAgentStateAction,
    CondensationRequestAction,
    MessageAction,
    NullAction,
    RecallAction,
    SystemMessageAction,
)
from openhands.events.event import Event, EventSource, RecallType
from openhands.events.observation import (
    AgentDelegateObservation,
    AgentStateChangedObservation,
    ErrorObservation,
    Observation,
    UserRejectObservation,
)
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.llm.provider_errors import context_window_error
from openhands.runtime.runtime_status import StatusCallback
from openhands.utils.sync_bridge import run_coroutine_blocking

if TYPE_CHECKING:
    from openhands.core.config import AgentConfig, LLMConfig
    from openhands.llm.conversation_stats import ConversationStats
    from openhands.security.analyzer import SecurityAnalyzer
    from openhands.storage.files import FileStore

USER_REJECTED_MESSAGE = "Action has been rejected by the user! Waiting for further user input."
TRAFFIC_CONTROL_REMINDER = (
    "The agent was paused. Press resume to let it continue, or start a new task."
)
# The ErrorObservations that answer a pending action dropped by a stop or an error (agent.md §8.5).
ERROR_ACTION_NOT_EXECUTED_STOPPED, ERROR_ACTION_NOT_EXECUTED_STOPPED_ID = (
    policies.NOT_EXECUTED_STOPPED
)
ERROR_ACTION_NOT_EXECUTED_ERROR, ERROR_ACTION_NOT_EXECUTED_ERROR_ID = policies.NOT_EXECUTED_ERROR


class _Done:
    """Returned by the controller's event and step hooks, which finish before returning.

    Code written against an asynchronous controller awaits these hooks
    (``await controller._step()``); awaiting this object completes at once.
    """

    __slots__ = ()

    def __await__(self) -> Generator[None, None, None]:
        yield from ()

    def __repr__(self) -> str:
        return "<done>"


DONE: Final = _Done()


class AgentController:
    def __init__(
        self,
        agent: Agent,
        event_stream: EventStream,
        conversation_stats: ConversationStats | None,
        iteration_delta: int,
        budget_per_task_delta: float | None = None,
        agent_to_llm_config: dict[str, LLMConfig] | None = None,
        agent_configs: dict[str, AgentConfig] | None = None,
        sid: str | None = None,
        file_store: FileStore | None = None,
        user_id: str | None = None,
        confirmation_mode: bool = False,
        initial_state: State | None = None,
        is_delegate: bool = False,
        headless_mode: bool = True,
        status_callback: StatusCallback | None = None,
        replay_events: list[Event] | None = None,
        security_analyzer: SecurityAnalyzer | None = None,
    ) -> None:
        self.id = sid or event_stream.sid
        self.agent = agent
        self.event_stream = event_stream
        self.conversation_stats = conversation_stats
        self.file_store = file_store
        self.user_id = user_id
        self.is_delegate = is_delegate
        self.headless_mode = headless_mode
        self.status_callback = status_callback
        self.security_analyzer = security_analyzer
        self.agent_to_llm_config = agent_to_llm_config or {}
        self.agent_configs = agent_configs or {}
        self.max_iterations = iteration_delta
        self.max_budget_per_task = budget_per_task_delta
        self.confirmation_mode = confirmation_mode
        self.parent: AgentController | None = None
        self.delegate: AgentController | None = None
        self._pending_action: Action | None = None
        self._cached_first_user_message: MessageAction | None = None
        self._closed = False
        # State changes also come from other threads (the server, status callbacks):
        # one transition at a time, each applied in full. Steps likewise, one at a time.
        self._transition_lock = threading.RLock()
        self._step_lock = threading.RLock()
        # The loop the controller was built on (None off-loop): where ``step()`` sends a
        # step requested from a thread without a running loop.
        self._loop = _running_loop()
        self._step_tasks: set[asyncio.Task[None] | concurrent.futures.Future[None]] = set()

        self.state_tracker = StateTracker(self.id, file_store, user_id, headless_mode)
        self._stuck_detector = StuckDetector(self.state_tracker.state)
        # By keyword, as subclasses overriding it (e.g. to observe the state) expect.
        self.set_initial_state(
            state=initial_state,
            conversation_stats=conversation_stats,
            max_iterations=iteration_delta,
            max_budget_per_task=budget_per_task_delta,
            confirmation_mode=confirmation_mode,
        )
        self._replay_manager = ReplayManager(replay_events)
        if not is_delegate:
            event_stream.subscribe(EventStreamSubscriber.AGENT_CONTROLLER, self.on_event, self.id)
        self._add_system_message()

    @property
    def state(self) -> State:
        return self.state_tracker.state

    @state.setter
    def state(self, state: State) -> None:
        self.state_tracker.state = state
        self._stuck_detector = StuckDetector(state)

    def set_initial_state(
        self,
        state: State | None,
        conversation_stats: ConversationStats | None,
        max_iterations: int,
        max_budget_per_task: float | None,
        confirmation_mode: bool = False,
    ) -> None:
        """Adopt ``state`` (restored or a delegate's) or start a fresh one, then load the
        agent's history from the stream."""
        self.state_tracker.set_initial_state(
            self.id,
            state,
            conversation_stats,
            max_iterations,
            max_budget_per_task,
            confirmation_mode,
        )
        self.state_tracker.load_history(self.event_stream)
        self._stuck_detector = StuckDetector(self.state)

    def _add_system_message(self) -> None:
        """Publish the agent's system prompt once, before the first user message."""
        for event in self.event_stream.search_events(start_id=self.state.start_id):
            if isinstance(event, SystemMessageAction):
                return
            if isinstance(event, MessageAction) and event.source == EventSource.USER:
                return
        message = self.agent.get_system_message()
        if message is not None and message.content:
            self.event_stream.add_event(message, EventSource.AGENT)

    # --- public API --------------------------------------------------------------------------

    def get_state(self) -> State:
        return self.state

    def get_agent_state(self) -> AgentState:
        return self.state.agent_state

    @property
    def pending_action(self) -> Action | None:
        """The action the agent waits on (an observation, or the user's confirmation)."""
        return self._pending_action

    def save_state(self) -> None:
        self.state_tracker.save_state()

    def get_trajectory(self, include_screenshots: bool = False) -> list[dict[str, Any]]:
        """The history as trajectory dicts; after ``close()`` delegates' events are included."""
        return self.state_tracker.get_trajectory(include_screenshots)

    def log(
        self,
        level: str,
        message: str,
        extra: dict[str, Any] | None = None,
        exc_info: bool = False,
    ) -> None:
        """Log ``message`` at ``level`` (``'debug'``, ``'info'``, …) tagged with this controller."""
        levelno = logging.getLevelName(level.upper())
        if not isinstance(levelno, int):
            raise ValueError(f"Unknown log level: {level!r}")
        logger.log(
            levelno,
            "[Agent Controller %s] %s",
            self.id,
            message,
            extra=extra,
            exc_info=exc_info,
            stacklevel=2,
        )

    async def close(self, set_stop_state: bool = True) -> None:
        """Stop listening (STOPPED first, if asked); the history becomes the full record."""
        self._close(set_stop_state)

    def _close(self, set_stop_state: bool) -> None:
        if self._closed:
            return
        if self.delegate is not None:
            self.delegate._close(set_stop_state=True)
            self.delegate = None
        if set_stop_state:
            self._set_state(AgentState.STOPPED)
        self.state_tracker.close(self.event_stream)
        if not self.is_delegate:
            self.event_stream.unsubscribe(EventStreamSubscriber.AGENT_CONTROLLER, self.id)
        self._closed = True

    async def set_agent_state_to(self, new_state: AgentState) -> None:
        """Apply ``new_state`` (agent.md §8.2) and publish the change; the current state is a no-op."""
        self._set_state(new_state)

    def _set_state(self, new_state: AgentState, reason: str = "") -> None:
        with self._transition_lock:
            self._apply_state(new_state, reason)

    def _apply_state(self, new_state: AgentState, reason: str) -> None:
        old_state = self.state.agent_state
        if new_state == old_state:
            return
        self.state.agent_state = new_state
        if new_state in (AgentState.STOPPED, AgentState.ERROR):
            self._reset()
        if old_state == AgentState.ERROR and new_state == AgentState.RUNNING:
            self.state_tracker.maybe_increase_control_flags_limits(self.headless_mode)
        follow_up: AgentState | None = None
        decision = policies.confirmation_status_for(new_state)
        if decision is not None and self._pending_action is not None:
            follow_up = self._release_pending_action(decision)
        if new_state == AgentState.ERROR:
            reason = self.state.last_error
        self.event_stream.add_event(
            AgentStateChangedObservation("", new_state.value, reason), EventSource.ENVIRONMENT
        )
        self.save_state()
        if follow_up is not None:
            self._set_state(follow_up)

    # --- events ----------------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """Stream callback: route to the active delegate, end a finished one, or handle."""
        delegate = self.delegate
        if delegate is None:
            self._on_event(event)
        elif policies.delegate_receives_events(
            delegate.get_agent_state(), delegate.state.last_error
        ):
            delegate._on_event(event)
        else:
            # This event is the delegate's last word (its state change); the parent
            # answers with the delegate's result instead of handling it.
            self.end_delegate()

    def _on_event(self, event: Event) -> _Done:
        if getattr(event, "hidden", False):
            return DONE
        self.state_tracker.add_history(event)
        if isinstance(event, Action):
            self._handle_action(event)
        elif isinstance(event, Observation):
            self._handle_observation(event)
        if self.should_step(event):
            self._step_with_exception_handling()
        return DONE

    def should_step(self, event: Event) -> bool:
        """Whether ``event`` (already handled) is the agent's cue to take a step (agent.md §8.3)."""
        return policies.should_step(event, self.state.agent_state, self.delegate is not None)

    def _handle_action(self, action: Action) -> None:
        handler = self._action_handlers().get(type(action))
        if handler is not None:
            handler(action)

    def _action_handlers(self) -> dict[type[Action], Callable[[Any], None]]:
        return {
            ChangeAgentStateAction: self._on_change_agent_state,
            MessageAction: self._on_message,
            AgentDelegateAction: self._on_delegate,
            AgentFinishAction: self._on_finish_or_reject,
            AgentRejectAction: self._on_finish_or_reject,
        }

    def _on_change_agent_state(self, action: ChangeAgentStateAction) -> None:
        try:
            new_state = AgentState(action.agent_state)
        except ValueError:
            logger.warning("Ignoring a change to unknown agent state %r", action.agent_state)
            return
        resuming = self.state.agent_state == AgentState.PAUSED and new_state == AgentState.RUNNING
        self._set_state(new_state)
        if (
            resuming
            and self._pending_action is None
            and self.delegate is None
            and policies.should_step_on_resume(self.state.history)
        ):
            self._step_with_exception_handling()

    def _on_message(self, action: MessageAction) -> None:
        if action.source == EventSource.USER:
            recall = RecallAction(query=action.content, recall_type=self._recall_type_for(action))
            if not policies.is_running_in_sandbox(self._pending_action, self.state.agent_state):
                # A command still running (e.g. the user paused and resumed meanwhile) stays
                # pending: the next step must wait for its output, which the recall's answer
                # joins in the history either way.
                self._pending_action = recall
            self.event_stream.add_event(recall, EventSource.USER)
            if self.state.agent_state != AgentState.RUNNING:
                self._set_state(AgentState.RUNNING)
        elif action.wait_for_response:
            if isinstance(self._pending_action, RecallAction):
                # The user spoke again while the agent was answering: their newer message
                # is still to be answered, so the agent keeps running instead of waiting.
                return
            self._set_state(AgentState.AWAITING_USER_INPUT)

    def _first_user_message(self) -> MessageAction | None:
        """This controller's first user message in the stream (looked up once, then cached)."""
        if self._cached_first_user_message is None:
            self._cached_first_user_message = next(
                (
                    event
                    for event in self.event_stream.search_events(start_id=self.state.start_id)
                    if isinstance(event, MessageAction) and event.source == EventSource.USER
                ),
                None,
            )
        return self._cached_first_user_message

    def _recall_type_for(self, message: MessageAction) -> RecallType:
        """Workspace context for this controller's first user message, knowledge after."""
        for event in self.state.history:
            if isinstance(event, MessageAction) and event.source == EventSource.USER:
                if event.id == message.id:
                    return RecallType.WORKSPACE_CONTEXT
                return RecallType.KNOWLEDGE
        return RecallType.WORKSPACE_CONTEXT

    def _on_delegate(self, action: AgentDelegateAction) -> None:
        try:
            self._start_delegate(action)
        except Exception as exc:  # e.g. an unknown agent name: tell the user, don't hang
            logger.exception("Could not start delegate %s", action.agent)
            self._react_to_exception(exc)
            return
        assert self.delegate is not None
        if "task" in action.inputs:
            task = MessageAction(content="TASK: " + str(action.inputs["task"]))
            self.event_stream.add_event(task, EventSource.USER)
            self.delegate._set_state(AgentState.RUNNING)

    def _on_finish_or_reject(self, action: AgentFinishAction | AgentRejectAction) -> None:
        self.state.outputs = action.outputs
        done = AgentState.FINISHED if isinstance(action, AgentFinishAction) else AgentState.REJECTED
        self._set_state(done)

    def _handle_observation(self, observation: Observation) -> None:
        pending = self._pending_action
        if pending is None or observation.cause != pending.id or pending.id == Event.INVALID_ID:
            return
        if self.state.agent_state == AgentState.AWAITING_USER_CONFIRMATION:
            return
        self._pending_action = None
        next_state = policies.state_after_pending_observation(self.state.agent_state)
        if next_state is not None:
            self._set_state(next_state)

    # --- stepping ----------------------------------------------------------------------------------

    def step(self) -> None:
        """Schedule one step as an asyncio task; the agent runs in a worker thread.

        The task goes on the running loop, or (called from a thread without one) on the
        loop the controller was built on. With neither, the step runs right here.
        """
        work = asyncio.to_thread(self._step_with_exception_handling)
        running = _running_loop()
        task: asyncio.Task[None] | concurrent.futures.Future[None]
        if running is not None:
            task = running.create_task(work)
        elif self._loop is not None and self._loop.is_running():
            task = asyncio.run_coroutine_threadsafe(work, self._loop)
        else:
            work.close()
            self._step_with_exception_handling()
            return
        self._step_tasks.add(task)
        task.add_done_callback(self._step_tasks.discard)

    def _step_with_exception_handling(self) -> None:
        with self._step_lock:
            try:
                self._step()
            except Exception as exc:
                logger.exception("Error while running the agent")
                self._react_to_exception(reportable_exception(exc))

    def _step(self) -> _Done:
        if self.state.agent_state != AgentState.RUNNING or self._pending_action is not None:
            return DONE
        self.state_tracker.sync_budget_flag_with_metrics()
        if self._is_stuck():
            return self._react_to_exception(AgentStuckInLoopError("Agent got stuck in a loop"))
        try:
            self.state_tracker.run_control_flags()
        except RuntimeError as limit_error:
            return self._react_to_exception(limit_error)
        action = self._next_action()
        if action is None:
            return DONE
        if action.runnable:
            self._gate_for_confirmation(action)
            self._pending_action = action
        if not isinstance(action, NullAction):
            self._publish_action(action)
        return DONE

    def _next_action(self) -> Action | None:
        """The replayed or the agent's next action; None when the step ended otherwise."""
        if self._replay_manager.should_replay():
            return self._replay_manager.step()
        try:
            action = self.agent.step(self.state)
            if action is None:
                raise LLMNoActionError("No action was returned")
        except RECOVERABLE_AGENT_ERRORS as agent_error:
            # The agent sees what went wrong; that observation makes it step again.
            self.event_stream.add_event(ErrorObservation(str(agent_error)), EventSource.AGENT)
            return None
        except Exception as step_error:
            # The provider's own words for "the prompt is too long", as the shared type.
            too_long = context_window_error(step_error)
            if too_long is None:
                raise
            if not self.agent.config.enable_history_truncation:
                raise too_long from step_error
            self.event_stream.add_event(CondensationRequestAction(), EventSource.AGENT)
            return None
        action.source = EventSource.AGENT
        return action

    def _gate_for_confirmation(self, action: Action) -> None:
        """In confirmation mode, score the action and mark it as awaiting when it must wait."""
        if not self.state.confirmation_mode or not policies.is_gated(action):
            return
        risk = self._assess_risk(action)
        action.security_risk = risk  # type: ignore[attr-defined]
        if policies.needs_confirmation(
            risk, self.security_analyzer is not None, self.agent.config.cli_mode
        ):
            action.confirmation_state = ActionConfirmationStatus.AWAITING_CONFIRMATION  # type: ignore[attr-defined]

    def _assess_risk(self, action: Action) -> ActionSecurityRisk:
        if self.security_analyzer is None:
            return ActionSecurityRisk.UNKNOWN
        try:
            return run_coroutine_blocking(self.security_analyzer.security_risk(action))
        except Exception:
            logger.exception("Security analyzer failed; treating the risk as unknown")
            return ActionSecurityRisk.UNKNOWN

    def _publish_action(self, action: Action) -> None:
        awaiting = _is_awaiting_confirmation(action)
        held_back = awaiting and not policies.carries_confirmation_state(action)
        if awaiting:
            reason = policies.describe_held_action(action) if held_back else ""
            self._set_state(AgentState.AWAITING_USER_CONFIRMATION, reason)
        action.llm_metrics = self.state_tracker.get_metrics_snapshot()
        if held_back:
            # Its wire form cannot say "awaiting", so the runtime would run it: it stays
            # pending here until the user confirms (published then) or rejects it.
            return
        self.event_stream.add_event(action, action.source or EventSource.AGENT)

    def _release_pending_action(self, decision: ActionConfirmationStatus) -> AgentState | None:
        """Apply the user's confirm/reject to the pending action; returns a follow-up state."""
        action = self._pending_action
        assert action is not None
        published = action.id != Event.INVALID_ID
        if published and hasattr(action, "thought"):
            action.thought = ""  # already shown once with the first copy
        action.confirmation_state = decision  # type: ignore[attr-defined]
        if not published and decision == ActionConfirmationStatus.REJECTED:
            # Never published, so no runtime will answer: answer for it.
            self._pending_action = None
            self.event_stream.add_event(
                UserRejectObservation(USER_REJECTED_MESSAGE), EventSource.AGENT
            )
            return AgentState.AWAITING_USER_INPUT
        action.id = Event.INVALID_ID
        self.event_stream.add_event(action, EventSource.AGENT)
        return None

    def _is_stuck(self) -> bool:
        if self.delegate is not None and self.delegate._is_stuck():
            return True
        return self._stuck_detector.is_stuck(self.headless_mode)

    # --- errors and resets -------------------------------------------------------------------------

    def _react_to_exception(self, exc: BaseException) -> _Done:
        reaction = react_to_exception(exc, self.status_callback is not None)
        self.state.last_error = reaction.last_error
        if self.status_callback is not None and reaction.runtime_status is not None:
            try:
                self.status_callback("error", reaction.runtime_status, reaction.last_error)
            except Exception:
                logger.exception("Status callback failed")
        self._set_state(reaction.state)
        return DONE

    def _reset(self) -> None:
        """On STOPPED/ERROR: answer an unanswered tool action, drop it, reset the agent."""
        pending = self._pending_action
        if pending is not None and policies.needs_not_executed_notice(pending, self.state.history):
            content, error_id = policies.not_executed_notice(self.state.agent_state)
            notice = ErrorObservation(content, error_id=error_id)
            notice.tool_call_metadata = pending.tool_call_metadata
            notice.cause = pending.id
            self.event_stream.add_event(notice, EventSource.AGENT)
        self._pending_action = None
        self.agent.reset()

    # --- delegation ----------------------------------------------------------------------------------

    async def start_delegate(self, action: AgentDelegateAction) -> None:
        """Hand the conversation to another agent until it finishes (shared limits)."""
        self._start_delegate(action)

    def _start_delegate(self, action: AgentDelegateAction) -> None:
        agent_cls = Agent.get_cls(action.agent)
        config = self.agent_configs.get(action.agent, self.agent.config)
        delegate_agent = agent_cls(config=config, llm_registry=self.agent.llm_registry)
        parent = self.state
        state = State(
            session_id=self.id.removesuffix(DELEGATE_SUFFIX),
            user_id=self.user_id,
            inputs=action.inputs or {},
            iteration_flag=parent.iteration_flag,
            budget_flag=parent.budget_flag,
            delegate_level=parent.delegate_level + 1,
            metrics=parent.metrics,
            start_id=self.event_stream.get_latest_event_id() + 1,
            parent_metrics_snapshot=copy.deepcopy(parent.metrics),
            parent_iteration=parent.iteration_flag.current_value,
        )
        self.delegate = AgentController(
            sid=self.id + DELEGATE_SUFFIX,
            agent=delegate_agent,
            event_stream=self.event_stream,
            conversation_stats=self.conversation_stats,
            iteration_delta=self.max_iterations,
            budget_per_task_delta=self.max_budget_per_task,
            agent_to_llm_config=self.agent_to_llm_config,
            agent_configs=self.agent_configs,
            initial_state=state,
            is_delegate=True,
            headless_mode=self.headless_mode,
            # Delegates are held to the same confirmation rules as their parent.
            confirmation_mode=parent.confirmation_mode,
            security_analyzer=self.security_analyzer,
        )
        self.delegate.parent = self

    def end_delegate(self) -> None:
        """Close the delegate and report its result to the parent's agent."""
        delegate = self.delegate
        if delegate is None:
            return
        final_state = delegate.get_agent_state()
        outputs = dict(delegate.state.outputs)
        self.state.iteration_flag.current_value = delegate.state.iteration_flag.current_value
        # Through the public coroutine, so that a controller subclass's close() runs too.
        run_coroutine_blocking(delegate.close(set_stop_state=True))
        self.delegate = None
        content = policies.delegate_result_content(delegate.agent.name, final_state, outputs)
        observation = AgentDelegateObservation(content=content, outputs=outputs)
        observation.tool_call_metadata = self._last_delegate_metadata()
        self.event_stream.add_event(observation, EventSource.AGENT)

    def _last_delegate_metadata(self) -> Any:
        for event in reversed(self.state.history):
            if isinstance(event, AgentDelegateAction):
                return event.tool_call_metadata
        return None

    def __repr__(self) -> str:
        return (
            f"AgentController(id={self.id!r}, agent={self.agent.name!r}, "
            f"state={self.state.agent_state.value!r}, delegate={self.delegate!r})"
        )


def _is_awaiting_confirmation(action: Action) -> bool:
    status = getattr(action, "confirmation_state", None)
    return status == ActionConfirmationStatus.AWAITING_CONFIRMATION


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
