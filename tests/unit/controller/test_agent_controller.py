"""The controller over a real EventStream, with scripted agents and fake neighbours."""

from __future__ import annotations

import asyncio

from openhands.controller.state.state import State
from openhands.core.config import AgentConfig
from openhands.core.schema import AgentState
from openhands.events.action import (
    Action,
    AgentFinishAction,
    AgentRejectAction,
    CmdRunAction,
    MessageAction,
    RecallAction,
    SystemMessageAction,
)
from openhands.events.event import EventSource, RecallType
from openhands.events.observation import (
    AgentStateChangedObservation,
    CmdOutputObservation,
    ErrorObservation,
    NullObservation,
)
from openhands.events.stream import EventStreamSubscriber
from openhands.events.tool import ToolCallMetadata
from tests.unit.controller.harness import World, wait_until


def _cmd(command: str, call_id: str | None = None) -> CmdRunAction:
    action = CmdRunAction(command=command)
    if call_id:
        action.tool_call_metadata = ToolCallMetadata(
            function_name="execute_bash",
            tool_call_id=call_id,
            model_response={"id": "resp"},
            total_calls_in_response=1,
        )
    return action


# --- start-up -----------------------------------------------------------------------------------


def test_system_message_is_published_once_at_start(world: World) -> None:
    world.start()
    world.settle()
    first = world.events()[0]
    assert isinstance(first, SystemMessageAction)
    assert first.source == EventSource.AGENT
    assert first.content == "You are a scripted test agent."
    assert world.controller is not None and world.controller.state.history == [first]

    # A second controller on the same conversation does not add another one.
    asyncio.run(world.controller.close())
    world.start()
    world.settle()
    systems = [e for e in world.events() if isinstance(e, SystemMessageAction)]
    assert len(systems) == 1


def test_no_system_message_when_a_user_message_came_first(world: World) -> None:
    world.user_says("hello")
    world.start()
    world.settle()
    assert not any(isinstance(e, SystemMessageAction) for e in world.events())


def test_new_state_defaults(world: World) -> None:
    controller = world.start(iteration_delta=7, budget_per_task_delta=2.5)
    state = controller.get_state()
    assert state.agent_state == AgentState.LOADING
    assert state.session_id == "conv"
    assert state.start_id == 0
    assert (state.iteration_flag.current_value, state.iteration_flag.max_value) == (0, 7)
    assert state.iteration_flag.limit_increase_amount == 7
    assert state.budget_flag is not None and state.budget_flag.max_value == 2.5


def test_no_budget_flag_for_zero_budget(world: World) -> None:
    assert world.start(budget_per_task_delta=0).state.budget_flag is None


# --- a normal run ---------------------------------------------------------------------------------


def test_user_message_runs_the_agent_until_it_finishes(world: World) -> None:
    controller = world.start([_cmd("ls"), AgentFinishAction(outputs={"answer": 42})])
    world.settle()
    world.user_says("list files")
    world.wait_for_state(AgentState.FINISHED)
    world.settle()

    assert world.state_changes() == ["running", "finished"]
    assert controller.state.outputs == {"answer": 42}
    assert [a.command for a in world.runtime.executed] == ["ls"]  # type: ignore[attr-defined]
    assert controller.state.iteration_flag.current_value == 2

    recall = world.memory.recalls[0]
    assert recall.source == EventSource.USER
    assert recall.recall_type == RecallType.WORKSPACE_CONTEXT
    assert recall.query == "list files"

    published = next(e for e in world.events() if isinstance(e, CmdRunAction))
    assert published.source == EventSource.AGENT
    assert published.llm_metrics is not None

    # Bookkeeping events stay out of the history.
    kinds = {type(e) for e in controller.state.history}
    assert AgentStateChangedObservation not in kinds
    assert NullObservation not in kinds


def test_state_changes_are_published_from_the_environment(world: World) -> None:
    world.start([AgentRejectAction(outputs={"reason": "no"})])
    world.user_says("do it")
    world.wait_for_state(AgentState.REJECTED)
    world.settle()
    changes = [e for e in world.events() if isinstance(e, AgentStateChangedObservation)]
    assert [c.agent_state for c in changes] == ["running", "rejected"]
    assert all(c.source == EventSource.ENVIRONMENT and c.reason == "" for c in changes)


def test_setting_the_same_state_publishes_nothing(world: World) -> None:
    controller = world.start()
    world.settle()
    before = world.stream.get_latest_event_id()
    asyncio.run(controller.set_agent_state_to(AgentState.LOADING))
    assert world.stream.get_latest_event_id() == before


def test_later_user_messages_recall_knowledge(world: World) -> None:
    world.start([MessageAction("which one?", wait_for_response=True)])
    world.user_says("first")
    world.wait_for_state(AgentState.AWAITING_USER_INPUT)
    world.user_says("second")
    world.wait_for_state(AgentState.FINISHED)
    assert [r.recall_type for r in world.memory.recalls] == [
        RecallType.WORKSPACE_CONTEXT,
        RecallType.KNOWLEDGE,
    ]


def test_agent_message_waiting_for_a_response_stops_stepping(world: World) -> None:
    world.start([MessageAction("question?", wait_for_response=True), _cmd("never")])
    world.user_says("go")
    world.wait_for_state(AgentState.AWAITING_USER_INPUT)
    world.settle()
    assert world.agent.steps == 1
    assert world.runtime.executed == []


def test_agent_message_without_waiting_keeps_stepping(world: World) -> None:
    world.start([MessageAction("thinking aloud"), AgentFinishAction()])
    world.user_says("go")
    world.wait_for_state(AgentState.FINISHED)
    assert world.agent.steps == 2


def test_change_agent_state_action_sets_the_state(world: World) -> None:
    controller = world.start()
    world.user_sets_state(AgentState.PAUSED)
    world.wait_for_state(AgentState.PAUSED)
    assert controller.get_agent_state() == AgentState.PAUSED


# --- pending action -------------------------------------------------------------------------------


def test_pending_action_blocks_steps_until_its_observation_arrives(world: World) -> None:
    world.stream.unsubscribe(EventStreamSubscriber.RUNTIME, "fake-runtime")
    controller = world.start([_cmd("sleep 100"), AgentFinishAction()])
    world.user_says("go")
    wait_until(lambda: any(isinstance(e, CmdRunAction) for e in world.events()))
    world.settle()
    action = next(e for e in world.events() if isinstance(e, CmdRunAction))

    unrelated = ErrorObservation("unrelated")
    unrelated.cause = action.id + 1000
    world.stream.add_event(unrelated, EventSource.ENVIRONMENT)
    world.settle()
    assert world.agent.steps == 1  # still waiting for the command

    answer = NullObservation("done")
    answer.cause = action.id
    world.stream.add_event(answer, EventSource.ENVIRONMENT)
    world.wait_for_state(AgentState.FINISHED)
    assert world.agent.steps == 2
    assert controller.state.agent_state == AgentState.FINISHED


def _start_with_unanswered_tool_call(world: World) -> CmdRunAction:
    world.stream.unsubscribe(EventStreamSubscriber.RUNTIME, "fake-runtime")
    world.start([_cmd("make build", call_id="call_1")])
    world.user_says("build")
    wait_until(lambda: any(isinstance(e, CmdRunAction) for e in world.events()))
    world.settle()
    return next(e for e in world.events() if isinstance(e, CmdRunAction))


def test_stop_with_an_unexecuted_tool_action_reports_it(world: World) -> None:
    action = _start_with_unanswered_tool_call(world)
    world.user_sets_state(AgentState.STOPPED)
    world.wait_for_state(AgentState.STOPPED)
    world.settle()

    errors = [e for e in world.events() if isinstance(e, ErrorObservation)]
    assert len(errors) == 1
    notice = errors[0]
    assert notice.content == "Stop button pressed. The action has not been executed."
    assert notice.error_id == "AGENT_ERROR$ERROR_ACTION_NOT_EXECUTED_STOPPED"
    assert notice.cause == action.id
    assert notice.tool_call_metadata == action.tool_call_metadata
    assert notice.source == EventSource.AGENT
    assert world.agent.resets == 1


def test_error_with_an_unexecuted_tool_action_reports_it(world: World) -> None:
    _start_with_unanswered_tool_call(world)
    world.user_sets_state(AgentState.ERROR)
    world.wait_for_state(AgentState.ERROR)
    world.settle()
    errors = [e for e in world.events() if isinstance(e, ErrorObservation)]
    assert [e.error_id for e in errors] == ["AGENT_ERROR$ERROR_ACTION_NOT_EXECUTED_ERROR"]


def test_stop_after_the_action_was_answered_adds_no_notice(world: World) -> None:
    world.start([_cmd("ls", call_id="call_1"), MessageAction("done?", wait_for_response=True)])
    world.user_says("go")
    world.wait_for_state(AgentState.AWAITING_USER_INPUT)
    world.user_sets_state(AgentState.STOPPED)
    world.wait_for_state(AgentState.STOPPED)
    world.settle()
    assert not any(isinstance(e, ErrorObservation) for e in world.events())


# --- limits -------------------------------------------------------------------------------------


ITERATION_ERROR = (
    "RuntimeError: Agent reached maximum iteration. Current iteration: 2, max iteration: 2"
)


def _endless_commands(n: int = 20) -> list:
    return [_cmd(f"echo {i}") for i in range(n)]


def test_iteration_limit_ends_in_error(world: World) -> None:
    controller = world.start(_endless_commands(), iteration_delta=2)
    world.user_says("go")
    world.wait_for_state(AgentState.ERROR)
    world.settle()
    assert controller.state.last_error == ITERATION_ERROR
    last_change = [e for e in world.events() if isinstance(e, AgentStateChangedObservation)][-1]
    assert last_change.agent_state == "error"
    assert last_change.reason == ITERATION_ERROR
    assert world.agent.steps == 2


def test_headless_continue_after_iteration_limit_gets_no_more_iterations(world: World) -> None:
    controller = world.start(_endless_commands(), iteration_delta=2, headless_mode=True)
    world.user_says("go")
    world.wait_for_state(AgentState.ERROR)
    world.settle()
    world.user_says("please continue")
    world.settle()
    assert controller.get_agent_state() == AgentState.ERROR
    assert controller.state.iteration_flag.max_value == 2
    assert world.agent.steps == 2


def test_interactive_continue_after_iteration_limit_extends_it(world: World) -> None:
    controller = world.start(_endless_commands(), iteration_delta=2, headless_mode=False)
    world.user_says("go")
    world.wait_for_state(AgentState.ERROR)
    world.settle()
    world.user_says("please continue")
    wait_until(lambda: world.agent.steps == 4)
    world.wait_for_state(AgentState.ERROR)
    assert controller.state.iteration_flag.max_value == 4
    assert controller.state.last_error.endswith("Current iteration: 4, max iteration: 4")


class _Stats:
    """A ConversationStats stand-in whose combined cost the test sets."""

    def __init__(self) -> None:
        from openhands.llm.metrics import Metrics

        self.metrics = Metrics()

    def get_combined_metrics(self):
        return self.metrics

    def save_metrics(self) -> None:
        pass


def test_budget_limit_ends_in_error_and_continuing_extends_it() -> None:
    world = World()
    stats = _Stats()

    def spend(amount: float):
        def step(state: State) -> CmdRunAction:
            stats.metrics.add_cost(amount)
            return _cmd(f"spend {amount} at {state.iteration_flag.current_value}")

        return step

    try:
        controller = world.start(
            [spend(0.6), spend(0.6), spend(0.6), spend(0.6), spend(0.6)],
            budget_per_task_delta=1.0,
            conversation_stats=stats,
            iteration_delta=100,
        )
        world.user_says("go")
        world.wait_for_state(AgentState.ERROR)
        world.settle()
        assert controller.state.last_error == (
            "RuntimeError: Agent reached maximum budget for conversation."
            "Current budget: 1.20, max budget: 1.00"
        )
        # The iteration counter moved before the budget check failed.
        assert controller.state.iteration_flag.current_value == 3
        assert world.agent.steps == 2

        published = [e for e in world.events() if isinstance(e, CmdRunAction)]
        assert published[-1].llm_metrics is not None
        assert published[-1].llm_metrics.max_budget_per_task == 1.0
        assert published[-1].llm_metrics.accumulated_cost == 1.2

        # Continuing (headless too) restarts the budget from what was spent.
        world.user_says("go on")
        world.wait_for_state(AgentState.ERROR)
        world.settle()
        assert controller.state.budget_flag is not None
        assert controller.state.budget_flag.max_value == 2.2
        assert world.agent.steps == 4
    finally:
        world.close()


# --- errors --------------------------------------------------------------------------------------


def test_recoverable_agent_error_becomes_an_observation_and_the_agent_retries(
    world: World,
) -> None:
    from openhands.core.exceptions import LLMMalformedActionError

    world.start([LLMMalformedActionError("bad tool call"), AgentFinishAction()])
    world.user_says("go")
    world.wait_for_state(AgentState.FINISHED)
    errors = [e for e in world.events() if isinstance(e, ErrorObservation)]
    assert [(e.content, e.source) for e in errors] == [("bad tool call", EventSource.AGENT)]
    assert world.agent.steps == 2


def test_agent_returning_none_is_a_recoverable_error(world: World) -> None:
    world.start([lambda state: None, AgentFinishAction()])
    world.user_says("go")
    world.wait_for_state(AgentState.FINISHED)
    errors = [e for e in world.events() if isinstance(e, ErrorObservation)]
    assert len(errors) == 1


def test_unexpected_exception_is_reported_generically(world: World) -> None:
    controller = world.start([ValueError("secret internals")])
    world.user_says("go")
    world.wait_for_state(AgentState.ERROR)
    assert controller.state.last_error == (
        "RuntimeError: There was an unexpected error while running the agent: ValueError. "
        "You can refresh the page or ask the agent to try again."
    )


def _rate_limit(attempt: int | None = None, maximum: int | None = None) -> Exception:
    from litellm.exceptions import RateLimitError

    exc = RateLimitError("slow down", llm_provider="openai", model="gpt-4o")
    if attempt is not None:
        exc.retry_attempt = attempt  # type: ignore[attr-defined]
        exc.max_retries = maximum
    return exc


def test_rate_limit_with_retries_left_then_exhausted(world: World) -> None:
    controller = world.start(
        [_rate_limit(1, 3), _rate_limit(3, 3)], with_status_callback=True, headless_mode=False
    )
    world.user_says("go")
    world.wait_for_state(AgentState.RATE_LIMITED)
    assert world.status_calls == []

    world.user_says("try again")
    world.wait_for_state(AgentState.ERROR)
    assert controller.state.last_error == "CHAT_INTERFACE$AGENT_RATE_LIMITED_STOPPED_MESSAGE"
    assert world.status_calls == []


def test_authentication_error_reports_its_status(world: World) -> None:
    from litellm.exceptions import AuthenticationError

    controller = world.start(
        [AuthenticationError("bad key", llm_provider="openai", model="gpt-4o")],
        with_status_callback=True,
    )
    world.user_says("go")
    world.wait_for_state(AgentState.ERROR)
    assert controller.state.last_error == "STATUS$ERROR_LLM_AUTHENTICATION"
    kind, status, message = world.status_calls[0]
    assert (kind, status.value, message) == (
        "error",
        "STATUS$ERROR_LLM_AUTHENTICATION",
        "STATUS$ERROR_LLM_AUTHENTICATION",
    )


def test_without_a_status_callback_errors_keep_their_text(world: World) -> None:
    from litellm.exceptions import AuthenticationError

    controller = world.start([AuthenticationError("bad key", "openai", "gpt-4o")])
    world.user_says("go")
    world.wait_for_state(AgentState.ERROR)
    assert controller.state.last_error.startswith("AuthenticationError: ")


def _context_window_error() -> Exception:
    from litellm.exceptions import ContextWindowExceededError

    return ContextWindowExceededError("prompt is too long", model="m", llm_provider="openai")


def test_context_window_error_requests_condensation(world: World) -> None:
    from openhands.events.action import CondensationRequestAction

    world.start([_context_window_error(), AgentFinishAction()])
    world.user_says("go")
    world.wait_for_state(AgentState.FINISHED)
    requests = [e for e in world.events() if isinstance(e, CondensationRequestAction)]
    assert len(requests) == 1 and requests[0].source == EventSource.AGENT
    assert world.agent.steps == 2  # the request made the agent step again


def test_context_window_error_without_truncation_is_fatal(world: World) -> None:
    agent = world.make_agent([_context_window_error()])
    agent.config = AgentConfig(enable_history_truncation=False)
    controller = world.start(agent=agent)
    world.user_says("go")
    world.wait_for_state(AgentState.ERROR)
    assert controller.state.last_error.startswith("LLMContextWindowExceedError: ")


def test_a_bad_request_that_is_not_about_the_context_is_an_error(world: World) -> None:
    from litellm.exceptions import BadRequestError

    controller = world.start([BadRequestError("invalid temperature", "m", "openai")])
    world.user_says("go")
    world.wait_for_state(AgentState.ERROR)
    assert controller.state.last_error.startswith("BadRequestError: ")


def test_stuck_agent_ends_in_error(world: World) -> None:
    controller = world.start([_cmd("ls") for _ in range(6)])
    world.user_says("go")
    world.wait_for_state(AgentState.ERROR)
    assert controller.state.last_error == "AgentStuckInLoopError: Agent got stuck in a loop"
    assert world.agent.steps == 4


# --- persistence and close ---------------------------------------------------------------------------


def test_state_is_saved_on_every_change_and_restores(world: World) -> None:
    controller = world.start([AgentFinishAction(outputs={"x": 1})])
    world.user_says("go")
    world.wait_for_state(AgentState.FINISHED)
    restored = State.restore_from_session("conv", world.file_store)
    assert restored.outputs == {"x": 1}
    assert restored.resume_state == AgentState.FINISHED
    assert restored.agent_state == AgentState.LOADING
    assert restored.iteration_flag.current_value == controller.state.iteration_flag.current_value


def test_restored_state_reloads_its_history_from_the_stream(world: World) -> None:
    world.start([AgentFinishAction()])
    world.user_says("go")
    world.wait_for_state(AgentState.FINISHED)
    world.settle()
    assert world.controller is not None
    original = [e.id for e in world.controller.state.history]
    asyncio.run(world.controller.close())

    restored = State.restore_from_session("conv", world.file_store)
    world.start(initial_state=restored)
    assert [e.id for e in world.controller.state.history] == original


def test_close_stops_and_unsubscribes(world: World) -> None:
    controller = world.start()
    world.settle()
    asyncio.run(controller.close())
    world.settle()
    assert controller.get_agent_state() == AgentState.STOPPED
    steps_before = world.agent.steps
    world.user_says("anyone there?")
    world.settle()
    assert world.agent.steps == steps_before
    assert not any(
        isinstance(e, RecallAction) for e in world.events()
    )  # nobody handled the message


# --- pause and resume -------------------------------------------------------------------------


def test_resume_after_the_step_finished_while_paused_continues(world: World) -> None:
    """The observation of the running step arrives while paused; Resume must go on (the
    reference left the agent idle until some other event came)."""
    import threading

    original_run = world.runtime._run
    paused = threading.Event()

    def slow_run(action):  # the command (like `sleep 8`) ends only once the agent is paused
        assert paused.wait(30), "the agent was never paused"
        return original_run(action)

    world.runtime._run = slow_run  # type: ignore[method-assign]
    world.start(script=[_cmd("sleep 8")])
    world.user_says("go")
    wait_until(lambda: len(world.runtime.received) == 1)
    world.user_sets_state(AgentState.PAUSED)
    world.wait_for_state(AgentState.PAUSED)
    paused.set()
    wait_until(
        lambda: any(e.observation == "run" for e in world.events() if hasattr(e, "observation"))
    )
    world.settle()
    assert world.controller is not None and world.controller.get_agent_state() == AgentState.PAUSED
    assert world.agent.steps == 1
    world.user_sets_state(AgentState.RUNNING)
    world.wait_for_state(AgentState.FINISHED)
    assert world.state_changes()[-3:] == ["paused", "running", "finished"]


def test_resume_does_not_step_while_an_action_is_still_pending(world: World) -> None:
    import time

    release = []
    original_run = world.runtime._run

    def blocked_run(action):
        wait_until(lambda: bool(release), timeout=5)
        return original_run(action)

    world.runtime._run = blocked_run  # type: ignore[method-assign]
    world.start(script=[_cmd("long")])
    world.user_says("go")
    wait_until(lambda: len(world.runtime.received) == 1)
    world.user_sets_state(AgentState.PAUSED)
    world.wait_for_state(AgentState.PAUSED)
    world.user_sets_state(AgentState.RUNNING)
    world.wait_for_state(AgentState.RUNNING)
    time.sleep(0.2)
    assert world.agent.steps == 1  # no second step before the command's output came
    release.append(True)
    world.wait_for_state(AgentState.FINISHED)
    assert world.agent.steps == 2


def test_a_message_while_paused_waits_for_the_running_command(world: World) -> None:
    """Paused while a command runs, the user says "continue" before it is done: the agent's
    next step must come after the command's output, and see it (the reference let the
    message's recall replace the pending command, so the agent stepped without the output
    and then ignored it)."""
    release: list[bool] = []
    original_run = world.runtime._run

    def blocked_run(action):
        wait_until(lambda: bool(release), timeout=5)
        return original_run(action)

    seen_outputs: list[int] = []

    def answer(state: State) -> Action:
        seen_outputs.append(sum(isinstance(e, CmdOutputObservation) for e in state.history))
        return AgentFinishAction()

    world.runtime._run = blocked_run  # type: ignore[method-assign]
    world.start(script=[_cmd("sleep 20"), answer])
    world.user_says("go")
    wait_until(lambda: len(world.runtime.received) == 1)
    world.user_sets_state(AgentState.PAUSED)
    world.wait_for_state(AgentState.PAUSED)
    world.user_says("continue")
    world.wait_for_state(AgentState.RUNNING)
    world.settle()
    assert world.agent.steps == 1  # nothing to decide before the command is done
    release.append(True)
    world.wait_for_state(AgentState.FINISHED)
    assert world.agent.steps == 2
    assert seen_outputs == [1]


def test_a_message_while_awaiting_confirmation_replaces_the_held_action(world: World) -> None:
    """An action held for confirmation never runs by itself: a user message instead of an
    answer must not leave the agent waiting for its output."""
    world.start(script=[_cmd("rm -rf build"), AgentFinishAction()], confirmation_mode=True)
    world.user_says("go")
    world.wait_for_state(AgentState.AWAITING_USER_CONFIRMATION)
    world.user_says("do something else instead")
    world.wait_for_state(AgentState.FINISHED)
    assert world.runtime.executed == []


def test_a_message_sent_while_the_agent_answers_is_answered_too(world: World) -> None:
    seen: list[str] = []

    def answer_while_the_user_speaks_again(state: State) -> Action:
        world.user_says("second")  # reaches the stream before this step's reply
        return MessageAction("reply to first", wait_for_response=True)

    def answer_the_latest(state: State) -> Action:
        users = [e for e in state.history if isinstance(e, MessageAction) and e.source == "user"]
        seen.append(users[-1].content)
        return MessageAction("reply to second", wait_for_response=True)

    world.start([answer_while_the_user_speaks_again, answer_the_latest])
    world.user_says("first")
    wait_until(lambda: world.agent.steps == 2, timeout=30)
    world.wait_for_state(AgentState.AWAITING_USER_INPUT)
    assert seen == ["second"]
