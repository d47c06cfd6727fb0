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
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openhands.controller.replay import ReplayManager, load_replay_log
from openhands.controller.state.state import State
from openhands.core.assembly import (
    AssemblyOptions,
    AssemblySteps,
    ConversationParts,
    assemble_conversation,
    wait_for_end_state,
)
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
    from openhands.runtime.runtime_status import RuntimeStatus, StatusCallback

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
    # What the caller's runtime and memory reported to before this run, given back after it.
    runtime_callback: StatusCallback | None = getattr(runtime, "status_callback", None)
    memory_callback: StatusCallback | None = getattr(memory, "status_callback", None)
    reply = partial(_user_reply, exit_on_message=exit_on_message, fake=fake_user_response_fn)
    start = _HeadlessStart(sid, reply)
    options = AssemblyOptions(
        runtime=runtime,
        memory=memory,
        headless_mode=headless_mode,
        # The environment's GITHUB_TOKEN & co. (``git_provider_tokens`` None), as the
        # reference's headless run: the sandbox gets them and the repository is cloned.
        selected_repository=config.sandbox.selected_repo,
        conversation_instructions=conversation_instructions,
        replay_events=replay_events,
        initial_user_action=(
            None if isinstance(initial_user_action, NullAction) else initial_user_action
        ),
        resume_after_error=MessageAction(RESUME_AFTER_ERROR_MESSAGE),
        before_start=start.install,
        steps=_HeadlessSteps(),
    )

    def give_callbacks_back() -> None:
        # Stop routing the caller's parts' reports to a controller that has finished.
        if runtime is not None:
            runtime.status_callback = runtime_callback
        if memory is not None:
            memory.status_callback = memory_callback

    try:
        parts = await assemble_conversation(config, sid, options)
    except BaseException:
        give_callbacks_back()
        raise
    try:
        await wait_for_end_state(parts.controller, END_STATES)
    except asyncio.CancelledError:
        logger.info("Run cancelled")
        raise
    finally:
        state = parts.controller.get_state()
        parts.event_stream.unsubscribe(EventStreamSubscriber.MAIN, sid)
        if config.save_trajectory_path:
            save_trajectory(config, sid, list(parts.event_stream.search_events()))
        # The final state stays as it is (no STOPPED); an in-memory store keeps nothing.
        await parts.close(save_state=config.file_store != "memory", stop_agent=False)
        give_callbacks_back()
    return state


class _HeadlessSteps(AssemblySteps):
    """The headless entry's steps: the agent through this module's ``create_agent`` (the
    reference's name here, which evaluation harnesses replace to run their own agent), the
    memory's working directory the runtime's workspace, and a controller that is always
    headless (agent.md §9.5), whatever the runtime was told."""

    async def agent(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        registry = draft.llm_registry
        assert registry is not None  # the registry step ran first
        # Looked up at call time, so a replacement made after import is the one used.
        make_agent = sys.modules[__name__].create_agent
        draft.agent = await asyncio.to_thread(make_agent, draft.config, registry)

    async def memory(
        self, draft: ConversationBuilder, options: AssemblyOptions, repo_directory: str | None
    ) -> None:
        runtime = draft.runtime
        assert runtime is not None  # the runtime step ran first
        workspace = replace(options, working_dir=str(runtime.workspace_root))
        await super().memory(draft, workspace, repo_directory)

    async def controller(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        draft.headless_mode = True
        await super().controller(draft, options)


class _HeadlessStart:
    """Installed right before the first action: errors end the run, and a question of the
    agent is answered by the (absent) user."""

    def __init__(self, sid: str, reply: Callable[[State], str]) -> None:
        self.sid = sid
        self.reply = reply

    def install(self, parts: ConversationParts) -> None:
        controller, stream = parts.controller, parts.event_stream
        install_status_callback(controller, parts.runtime, parts.memory)

        def on_event(event: Event) -> None:
            if not isinstance(event, AgentStateChangedObservation):
                return
            if event.agent_state != AgentState.AWAITING_USER_INPUT.value:
                return
            answer = self.reply(controller.get_state())
            stream.add_event(MessageAction(answer), EventSource.USER)

        stream.subscribe(EventStreamSubscriber.MAIN, on_event, self.sid)


def _user_reply(state: State, *, exit_on_message: bool, fake: FakeUserResponse | None) -> str:
    """What the (absent) user answers when the agent waits for input."""
    if exit_on_message:
        return "/exit"
    if fake is not None:
        return fake(state)
    return input("Request user input >> ")


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
