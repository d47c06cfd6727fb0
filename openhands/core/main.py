"""Headless entrypoint: ``python -m openhands.core.main -t "task"`` (agent.md §9.4–9.5).

Runs one conversation to an end state (finished, rejected, error, paused or stopped) and
optionally saves the trajectory. The same ``run_controller`` drives evaluation harnesses,
which import the factories they need from this module (``create_runtime`` above all), as
they did in the reference; those names are re-exported here from ``openhands.core.setup``
and friends.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openhands.controller.replay import ReplayManager, load_replay_log
from openhands.controller.state.state import State
from openhands.core.config import OpenHandsConfig, parse_arguments, setup_config_from_args
from openhands.core.config.arg_utils import openhands_version
from openhands.core.config.mcp_config import OpenHandsMCPConfigImpl
from openhands.core.logger import openhands_logger as logger
from openhands.core.loop import error_to_state_callback, run_agent_until_done
from openhands.core.schema import AgentState
from openhands.core.setup import (
    ConversationBuilder,
    create_agent,
    create_controller,
    create_memory,
    create_registry_and_conversation_stats,
    create_runtime,
    generate_sid,
    get_provider_tokens,
    initialize_repository_for_runtime,
)
from openhands.events.action import Action, MessageAction, NullAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import AgentStateChangedObservation
from openhands.events.serialization import event_to_trajectory
from openhands.events.stream import EventStreamSubscriber
from openhands.memory.memory import Memory
from openhands.runtime.base import Runtime
from openhands.storage.jwt_secret import ensure_jwt_secret
from openhands.utils.async_utils import call_async_from_sync

if TYPE_CHECKING:
    from openhands.controller.agent_controller import AgentController
    from openhands.runtime.runtime_status import RuntimeStatus

# The module-level names of the reference's ``openhands.core.main`` that scripts import or
# patch, besides what is defined here.
__all__ = [
    "END_STATES",
    "Action",
    "AgentState",
    "AgentStateChangedObservation",
    "Event",
    "EventSource",
    "EventStreamSubscriber",
    "Memory",
    "MessageAction",
    "NullAction",
    "OpenHandsConfig",
    "OpenHandsMCPConfigImpl",
    "ReplayManager",
    "Runtime",
    "State",
    "auto_continue_response",
    "call_async_from_sync",
    "create_agent",
    "create_controller",
    "create_memory",
    "create_registry_and_conversation_stats",
    "create_runtime",
    "generate_sid",
    "get_provider_tokens",
    "initialize_repository_for_runtime",
    "install_status_callback",
    "load_replay_log",
    "logger",
    "main",
    "parse_arguments",
    "run_agent_until_done",
    "run_controller",
    "setup_config_from_args",
]

StatusCallback = Callable[[str, "RuntimeStatus", str], None]

END_STATES = (
    AgentState.FINISHED,
    AgentState.REJECTED,
    AgentState.ERROR,
    AgentState.PAUSED,
    AgentState.STOPPED,
)

AUTO_CONTINUE_RESPONSE = (
    "Please continue working on the task using whatever approach you think is best. "
    "When the task is complete, use the finish tool. There is no human available to "
    "answer questions, so do not ask for one."
)

RESUME_AFTER_ERROR_MESSAGE = (
    "The previous run of this conversation stopped with an error. Do not simply repeat what "
    "you were doing: look at what went wrong, and if it is unclear how to proceed, ask me "
    "about the earlier errors."
)

FakeUserResponse = Callable[["State"], str]


def auto_continue_response(state: State, **_: Any) -> str:
    return AUTO_CONTINUE_RESPONSE


def read_task_from_stdin() -> str:
    """One line, or everything up to a line ``/exit``, from a non-interactive stdin."""
    lines = []
    for line in sys.stdin:
        if line.strip() == "/exit":
            break
        lines.append(line)
    return "".join(lines).strip()


def save_trajectory(config: OpenHandsConfig, sid: str, history: list[Event]) -> str | None:
    target = config.save_trajectory_path
    if not target:
        return None
    path = Path(target)
    if path.is_dir() or target.endswith(os.sep):
        path.mkdir(parents=True, exist_ok=True)
        path = path / f"{sid}.json"
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    items = [
        event_to_trajectory(e, include_screenshots=config.save_screenshots_in_trajectory)
        for e in history
    ]
    path.write_text(json.dumps(items, indent=4))
    logger.info("Trajectory saved to %s", path)
    return str(path)


def install_status_callback(controller: AgentController, runtime: Runtime, memory: Memory) -> None:
    """Route error reports of the runtime, the controller and memory to an ERROR end state.

    Call it on the event loop that waits for the run: the ERROR transition is sent there.

    Without it a runtime that dies under a pending action would leave the run waiting for an
    observation that never comes. A callback the caller installed still gets every report.
    """

    on_status = error_to_state_callback(controller, asyncio.get_running_loop())
    for component in (runtime, controller, memory):
        # A stand-in runtime (a test double specced on a client class) may lack the
        # attribute until it is set here.
        current: StatusCallback | None = getattr(component, "status_callback", None)
        component.status_callback = _chained(current, on_status)


def _chained(first: StatusCallback | None, second: StatusCallback) -> StatusCallback:
    if first is None:
        return second

    def both(level: str, status: RuntimeStatus, message: str) -> None:
        first(level, status, message)
        second(level, status, message)

    return both


async def run_controller(
    config: OpenHandsConfig,
    initial_user_action: Action,
    sid: str | None = None,
    runtime: Runtime | None = None,
    exit_on_message: bool = False,
    fake_user_response_fn: FakeUserResponse | None = None,
    headless_mode: bool = True,
    memory: Memory | None = None,
    conversation_instructions: str | None = None,
) -> State | None:
    """Run one conversation until the agent reaches an end state; return its State.

    A ``runtime`` (or ``memory``) the caller passes in stays theirs: it is left open, with
    its event stream, so that the caller can read the results through it (evaluation
    harnesses run commands in the sandbox afterwards) and close it themselves. Only what
    this call built is closed here. Without ``sid`` the conversation is the given runtime's
    (its event stream's id), or a new one.
    """
    # Checked before anything starts, so a bad trajectory leaves no sandbox behind.
    replay_events = None
    if config.replay_trajectory_path:
        if not isinstance(initial_user_action, NullAction):
            raise ValueError("A task cannot be given together with a replay trajectory")
        # The recorded first user message starts the run; the rest is replayed step by step.
        replay_events, initial_user_action = load_replay_log(config.replay_trajectory_path)

    given_stream = runtime.event_stream if runtime is not None else None
    sid = sid or (given_stream.sid if given_stream is not None else generate_sid(config))
    # The same builder the server uses, so the two assemble a conversation alike. With a
    # given runtime its stream (and the stream's file store) hold the conversation.
    builder = ConversationBuilder(
        config, sid, event_stream=given_stream, headless_mode=headless_mode
    )
    registry, _ = builder.build_llm_registry()
    # Through this module's ``create_agent`` (the reference's name here, which evaluation
    # harnesses replace to run their own agent); it builds what ``build_agent`` builds.
    builder.agent = create_agent(config, registry)

    owns_runtime = runtime is None
    if runtime is None:
        # The environment's GITHUB_TOKEN & co., as the reference's headless run: the sandbox
        # gets them and the selected repository is cloned with them.
        runtime = builder.build_runtime(git_provider_tokens=get_provider_tokens())
    else:
        builder.runtime = runtime
    # What the caller's runtime and memory reported to before this run, given back after it.
    runtime_callback: StatusCallback | None = getattr(runtime, "status_callback", None)
    memory_callback: StatusCallback | None = getattr(memory, "status_callback", None)
    try:
        repo_directory = None
        if owns_runtime:
            await runtime.connect()
            repo_directory = await asyncio.to_thread(
                builder.initialize_repository, config.sandbox.selected_repo
            )
        if memory is None:
            builder.memory = await asyncio.to_thread(
                partial(
                    builder.build_memory,
                    selected_repository=config.sandbox.selected_repo,
                    repo_directory=repo_directory,
                    conversation_instructions=conversation_instructions,
                    working_dir=str(runtime.workspace_root),
                )
            )
        else:
            builder.memory = memory
        return await _run_to_end_state(
            builder,
            runtime,
            builder.memory,
            initial_user_action,
            replay_events,
            lambda state: _user_reply(state, exit_on_message, fake_user_response_fn),
        )
    finally:
        event_stream = runtime.event_stream
        if owns_runtime:
            runtime.close()
            event_stream.close()
        else:
            # The stream stays open for the caller: take this run's listeners off it, and
            # stop routing the runtime's reports to a controller that has finished.
            runtime.status_callback = runtime_callback
            if memory is None and builder.memory is not None:
                event_stream.unsubscribe(EventStreamSubscriber.MEMORY, builder.memory.sid)
        if memory is not None:
            memory.status_callback = memory_callback
        await builder.close_security_analyzer()


def _user_reply(
    state: State, exit_on_message: bool, fake_user_response_fn: FakeUserResponse | None
) -> str:
    """What the (absent) user answers when the agent waits for input."""
    if exit_on_message:
        return "/exit"
    if fake_user_response_fn is not None:
        return fake_user_response_fn(state)
    return input("Request user input >> ")


async def _run_to_end_state(
    builder: ConversationBuilder,
    runtime: Runtime,
    memory: Memory,
    initial_user_action: Action,
    replay_events: list[Event] | None,
    user_reply: Callable[[State], str],
) -> State:
    """Build the controller over ``runtime`` and ``memory``, start the conversation and wait
    for an end state; then save the state and the trajectory and close the controller."""
    config, sid = builder.config, builder.sid
    event_stream = runtime.event_stream
    await builder.add_mcp_tools()

    builder.build_security_analyzer()
    # The controller of a headless run is always headless (agent.md §9.5), whatever the
    # runtime was told.
    builder.headless_mode = True
    controller = builder.build_controller(replay_events)
    initial_state = builder.initial_state
    install_status_callback(controller, runtime, memory)

    if initial_state is not None and initial_state.last_error:
        event_stream.add_event(MessageAction(RESUME_AFTER_ERROR_MESSAGE), EventSource.USER)
    elif not isinstance(initial_user_action, NullAction):
        event_stream.add_event(initial_user_action, EventSource.USER)

    def on_event(event: Event) -> None:
        if not isinstance(event, AgentStateChangedObservation):
            return
        if event.agent_state != AgentState.AWAITING_USER_INPUT.value:
            return
        event_stream.add_event(MessageAction(user_reply(controller.get_state())), EventSource.USER)

    event_stream.subscribe(EventStreamSubscriber.MAIN, on_event, sid)
    try:
        while controller.get_agent_state() not in END_STATES:
            await asyncio.sleep(0.2)
    except asyncio.CancelledError:
        logger.info("Run cancelled")
        raise
    finally:
        state = controller.get_state()
        if config.file_store != "memory":
            try:
                controller.save_state()
            except Exception as e:
                logger.warning("Could not save the state of %s: %s", sid, e)
        await controller.close(set_stop_state=False)
        event_stream.unsubscribe(EventStreamSubscriber.MAIN, sid)
        save_trajectory(config, sid, list(event_stream.search_events()))
    return state


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    if getattr(args, "version", False):
        print(f"OpenHands version: {openhands_version()}")
        return 0
    config = setup_config_from_args(args)
    ensure_jwt_secret(config)  # salts the conversation id made from --name

    task = ""
    if args.file:
        task = Path(args.file).read_text()
    elif args.task:
        task = args.task
    elif not sys.stdin.isatty():
        task = read_task_from_stdin()

    if not task and not config.replay_trajectory_path:
        raise ValueError("No task provided. Please specify a task through -t, -f.")
    if task and config.replay_trajectory_path:
        raise ValueError("A task cannot be given together with --replay-trajectory-path")
    initial: Action = MessageAction(task) if task else NullAction()

    sid = generate_sid(config, args.name or None)
    fake = None if getattr(args, "no_auto_continue", False) else auto_continue_response
    state = asyncio.run(run_controller(config, initial, sid=sid, fake_user_response_fn=fake))
    final = state.agent_state if state is not None else AgentState.ERROR
    logger.info("Conversation %s ended in state %s", sid, getattr(final, "value", final))
    return 0 if final == AgentState.FINISHED else 1


if __name__ == "__main__":
    sys.exit(main())
