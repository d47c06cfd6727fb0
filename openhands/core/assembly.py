"""One conversation assembled in one place, for every entry point.

``assemble_conversation`` builds the parts of a conversation (LLM registry and stats, agent,
connected runtime, workspace repository, memory, MCP tools, security analyzer, controller)
in a fixed order and hands them back as one immutable ``ConversationParts``; its ``close``
releases exactly what the assembly created. The web server's ``AgentSession``, the terminal
app and the headless ``run_controller`` all call it, so the order of the steps, who owns
which part and how the parts are let go cannot drift apart between them.

How a single part is made is a step of ``AssemblySteps``: a caller that must build one part
its own way (the server's ``AgentSession._create_*`` hooks, the headless entry's patchable
``create_*`` names) overrides that step and keeps the rest. ``wait_for_end_state`` (from
``openhands.core.loop``, re-exported here) waits for the agent to reach an end state by
listening to the stream instead of polling.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from openhands.core.config import OpenHandsConfig
from openhands.core.exceptions import AgentRuntimeUnavailableError
from openhands.core.logger import openhands_logger as logger
from openhands.core.loop import wait_for_end_state
from openhands.core.setup import ConversationBuilder, GitProviderTokens, get_provider_tokens
from openhands.events.event import Event, EventSource
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.storage.files import FileStore

if TYPE_CHECKING:
    from openhands.controller.agent import Agent
    from openhands.controller.agent_controller import AgentController
    from openhands.controller.state.state import State
    from openhands.events.action import Action
    from openhands.llm.conversation_stats import ConversationStats
    from openhands.llm.llm_registry import LLMRegistry
    from openhands.memory.memory import Memory
    from openhands.runtime.base import Runtime
    from openhands.runtime.impl.docker.sandboxes import DockerSandboxes
    from openhands.runtime.runtime_status import StatusCallback
    from openhands.security.analyzer import SecurityAnalyzer

__all__ = [
    "AssemblyOptions",
    "AssemblySteps",
    "ConversationParts",
    "RuntimeRelease",
    "assemble_conversation",
    "wait_for_end_state",
]

# How an owned runtime is let go: the default closes it in a worker thread and waits; the
# web server starts the teardown in the background and tracks it instead.
RuntimeRelease = Callable[["Runtime"], Awaitable[None]]


async def close_runtime_and_wait(runtime: Runtime) -> None:
    """The default release: ``runtime.close()`` (blocking, slow for a sandbox) off the loop."""
    await asyncio.to_thread(runtime.close)


@dataclass(frozen=True)
class AssemblyOptions:
    """Everything ``assemble_conversation`` needs besides the config and the conversation id.

    Parts handed in (``runtime``, ``memory``, ``event_stream``, ``llm_registry`` with
    ``conversation_stats``) stay their caller's: the parts' ``close`` leaves them open.
    """

    # Parts to reuse rather than build.
    runtime: Runtime | None = None
    memory: Memory | None = None
    event_stream: EventStream | None = None
    llm_registry: LLMRegistry | None = None
    conversation_stats: ConversationStats | None = None
    file_store: FileStore | None = None
    # Who and how.
    user_id: str | None = None
    agent_name: str | None = None
    headless_mode: bool = True
    status_callback: StatusCallback | None = None
    retry_listener: Callable[[int, int], None] | None = None
    docker_sandboxes: DockerSandboxes | None = None
    # The sandbox and its workspace. ``git_provider_tokens`` None: the environment's
    # (GITHUB_TOKEN & co.), as a headless run takes them.
    env_vars: Mapping[str, str] | None = None
    git_provider_tokens: GitProviderTokens | None = None
    selected_repository: str | None = None
    selected_branch: str | None = None
    repo_url: str | None = None
    working_dir: str | None = None
    # What the agent is told.
    conversation_instructions: str | None = None
    custom_secrets_descriptions: Mapping[str, str] | None = None
    # How the conversation starts: events to replay, then the first user action. When the
    # restored state ended in an error, ``resume_after_error`` (if given) is sent instead.
    replay_events: Sequence[Event] | None = None
    initial_user_action: Action | None = None
    resume_after_error: Action | None = None
    # Called with the finished parts right before the first action is added: the place to
    # subscribe listeners, so that nothing the first step does is missed.
    before_start: Callable[[ConversationParts], None] | None = None
    # Per-part overrides, and how an owned runtime is let go.
    steps: AssemblySteps | None = None
    release_runtime: RuntimeRelease = close_runtime_and_wait


class AssemblySteps:
    """How each part is made. ``assemble_conversation`` runs them in the order below on one
    ``ConversationBuilder`` (the draft, which keeps what each step built); override a step
    to make that part your own way. Blocking work runs in worker threads."""

    async def llm_registry(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        if options.llm_registry is not None and options.conversation_stats is not None:
            draft.llm_registry = options.llm_registry
            draft.conversation_stats = options.conversation_stats
            return
        # Building the registry imports LiteLLM and reads files.
        await asyncio.to_thread(draft.build_llm_registry)

    async def agent(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        await asyncio.to_thread(draft.build_agent)

    async def runtime(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        """Build and connect the runtime; raise when it cannot connect."""
        tokens = options.git_provider_tokens
        if tokens is None:
            tokens = get_provider_tokens()
        runtime = await asyncio.to_thread(
            partial(
                draft.build_runtime,
                env_vars=dict(options.env_vars) if options.env_vars is not None else None,
                git_provider_tokens=tokens,
            )
        )
        await runtime.connect()

    async def repository(self, draft: ConversationBuilder, options: AssemblyOptions) -> str | None:
        """Clone (or init) the selected repository; the directory it is in, or None."""
        return await asyncio.to_thread(
            draft.initialize_repository,
            options.selected_repository,
            options.selected_branch,
            options.repo_url,
            options.git_provider_tokens,
        )

    async def memory(
        self, draft: ConversationBuilder, options: AssemblyOptions, repo_directory: str | None
    ) -> None:
        descriptions = options.custom_secrets_descriptions
        await asyncio.to_thread(
            partial(
                draft.build_memory,
                selected_repository=options.selected_repository,
                repo_directory=repo_directory,
                selected_branch=options.selected_branch,
                conversation_instructions=options.conversation_instructions,
                working_dir=options.working_dir,
                custom_secrets_descriptions=dict(descriptions) if descriptions else None,
            )
        )

    async def mcp_tools(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        await draft.add_mcp_tools()

    async def security_analyzer(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        draft.build_security_analyzer()

    async def controller(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        replay = list(options.replay_events) if options.replay_events is not None else None
        # Restoring the saved state reads files; the controller keeps no loop of its own.
        await asyncio.to_thread(draft.build_controller, replay)


@dataclass
class _Lifecycle:
    """The one mutable bit of the parts: whether they were closed already."""

    closed: bool = False


@dataclass(frozen=True)
class ConversationParts:
    """The assembled conversation. Immutable: a part is never swapped once built.

    ``owns_runtime`` / ``owns_memory`` / ``owns_event_stream``: whether assembly built that
    part (then ``close`` releases it) or it was handed in (then it stays open).
    """

    sid: str
    config: OpenHandsConfig
    event_stream: EventStream
    llm_registry: LLMRegistry | None
    conversation_stats: ConversationStats | None
    agent: Agent
    runtime: Runtime
    memory: Memory
    controller: AgentController
    security_analyzer: SecurityAnalyzer | None = None
    initial_state: State | None = None
    repository_directory: str | None = None
    owns_runtime: bool = True
    owns_memory: bool = True
    owns_event_stream: bool = True
    release_runtime: RuntimeRelease = field(default=close_runtime_and_wait, repr=False)
    _lifecycle: _Lifecycle = field(default_factory=_Lifecycle, repr=False, compare=False)

    @property
    def closed(self) -> bool:
        return self._lifecycle.closed

    async def close(self, *, save_state: bool = True, stop_agent: bool = True) -> None:
        """Close what assembly created, once: the controller (its state saved first unless
        ``save_state`` is False; ``stop_agent`` False keeps the final agent state rather
        than moving it to STOPPED), the analyzer, the memory's listener, an owned runtime
        and an owned stream. A part a caller handed in stays open. Failures are logged."""
        if self._lifecycle.closed:
            return
        self._lifecycle.closed = True
        await _close_parts(
            self.sid,
            controller=self.controller,
            analyzer=self.security_analyzer,
            memory=self.memory if self.owns_memory else None,
            runtime=self.runtime if self.owns_runtime else None,
            event_stream=self.event_stream,
            owns_event_stream=self.owns_event_stream,
            release_runtime=self.release_runtime,
            save_state=save_state,
            stop_agent=stop_agent,
        )


async def assemble_conversation(
    config: OpenHandsConfig, sid: str, options: AssemblyOptions | None = None
) -> ConversationParts:
    """Build every part of conversation ``sid`` and start it (replay, then the first action).

    On failure everything built so far is released as ``ConversationParts.close`` would, and
    the error is raised. A runtime step that cannot give a sandbox raises
    ``AgentRuntimeUnavailableError``.
    """
    options = options or AssemblyOptions()
    steps = options.steps or AssemblySteps()
    given_runtime = options.runtime
    event_stream = options.event_stream
    if event_stream is None and given_runtime is not None:
        # A reused runtime brings the stream (and its file store) holding the conversation.
        event_stream = given_runtime.event_stream
    owns_event_stream = event_stream is None
    if event_stream is None:
        file_store = options.file_store or ConversationBuilder(config, sid).file_store
        event_stream = EventStream(sid, file_store, options.user_id)
    draft = ConversationBuilder(
        config,
        sid,
        file_store=options.file_store,
        event_stream=event_stream,
        user_id=options.user_id,
        headless_mode=options.headless_mode,
        status_callback=options.status_callback,
        agent_name=options.agent_name,
        retry_listener=options.retry_listener,
    )
    draft.docker_sandboxes = options.docker_sandboxes
    try:
        await steps.llm_registry(draft, options)
        await steps.agent(draft, options)
        repo_directory: str | None = None
        if given_runtime is None:
            await steps.runtime(draft, options)
            if draft.runtime is None:
                raise AgentRuntimeUnavailableError(f"No runtime for conversation {sid}")
            repo_directory = await steps.repository(draft, options)
        else:
            draft.runtime = given_runtime
        if options.memory is None:
            await steps.memory(draft, options, repo_directory)
        else:
            draft.memory = options.memory
        await steps.mcp_tools(draft, options)
        await steps.security_analyzer(draft, options)
        await steps.controller(draft, options)
        parts = _freeze(draft, options, event_stream, owns_event_stream, repo_directory)
    except BaseException:
        await _close_parts(
            sid,
            controller=draft.controller,
            analyzer=draft.security_analyzer,
            memory=draft.memory if options.memory is None else None,
            runtime=draft.runtime if given_runtime is None else None,
            event_stream=event_stream,
            owns_event_stream=owns_event_stream,
            release_runtime=options.release_runtime,
            save_state=False,
            stop_agent=False,
        )
        raise
    try:
        _start(parts, options)
    except BaseException:
        await parts.close(save_state=False, stop_agent=False)
        raise
    return parts


def _start(parts: ConversationParts, options: AssemblyOptions) -> None:
    """Let the caller subscribe, then add the first user action (the resume message when
    the restored state ended in an error and one is given)."""
    if options.before_start is not None:
        options.before_start(parts)
    first = options.initial_user_action
    restored = parts.initial_state
    if restored is not None and restored.last_error and options.resume_after_error is not None:
        first = options.resume_after_error
    if first is not None:
        parts.event_stream.add_event(first, EventSource.USER)


def _freeze(
    draft: ConversationBuilder,
    options: AssemblyOptions,
    event_stream: EventStream,
    owns_event_stream: bool,
    repo_directory: str | None,
) -> ConversationParts:
    def built(part: object, name: str) -> None:
        if part is None:
            raise RuntimeError(f"The {name} step built nothing")

    built(draft.agent, "agent")
    built(draft.runtime, "runtime")
    built(draft.memory, "memory")
    built(draft.controller, "controller")
    assert draft.agent is not None and draft.runtime is not None
    assert draft.memory is not None and draft.controller is not None
    return ConversationParts(
        sid=draft.sid,
        config=draft.config,
        event_stream=event_stream,
        llm_registry=draft.llm_registry,
        conversation_stats=draft.conversation_stats,
        agent=draft.agent,
        runtime=draft.runtime,
        memory=draft.memory,
        controller=draft.controller,
        security_analyzer=draft.security_analyzer,
        initial_state=draft.initial_state,
        repository_directory=repo_directory,
        owns_runtime=options.runtime is None,
        owns_memory=options.memory is None,
        owns_event_stream=owns_event_stream,
        release_runtime=options.release_runtime,
    )


async def _close_parts(
    sid: str,
    *,
    controller: AgentController | None,
    analyzer: SecurityAnalyzer | None,
    memory: Memory | None,
    runtime: Runtime | None,
    event_stream: EventStream,
    owns_event_stream: bool,
    release_runtime: RuntimeRelease,
    save_state: bool,
    stop_agent: bool,
) -> None:
    """Release the given parts in dependency order (controller first, stream last); each
    failure is logged so that the remaining parts are still released."""
    if controller is not None:
        try:
            if save_state:
                controller.save_state()
            await controller.close(set_stop_state=stop_agent)
        except Exception:
            logger.exception("Error closing the controller of %s", sid)
    if analyzer is not None:
        try:
            await analyzer.close()
        except Exception:
            logger.exception("Error closing the security analyzer of %s", sid)
    if memory is not None and not owns_event_stream:
        # The stream outlives these parts: take the memory's listener off it (a memory
        # built by a caller's own step may have subscribed under another id, or not at all).
        try:
            event_stream.unsubscribe(EventStreamSubscriber.MEMORY, getattr(memory, "sid", sid))
        except Exception:
            logger.exception("Error unsubscribing the memory of %s", sid)
    if runtime is not None:
        try:
            await release_runtime(runtime)
        except Exception:
            logger.exception("Error closing the runtime of %s", sid)
    if owns_event_stream:
        event_stream.close()
