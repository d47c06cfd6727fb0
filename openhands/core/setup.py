"""Factories that wire one conversation together (used by the headless entrypoint and the server).

Each function builds one part; callers decide the order. Nothing here runs at import time.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from openhands.core.config import OpenHandsConfig
from openhands.core.logger import openhands_logger as logger
from openhands.events.event import Event
from openhands.events.stream import EventStream
from openhands.storage.factory import get_file_store_from_config
from openhands.storage.files import FileStore

if TYPE_CHECKING:
    from openhands.controller.agent import Agent
    from openhands.controller.agent_controller import AgentController
    from openhands.controller.state.state import State
    from openhands.llm.conversation_stats import ConversationStats
    from openhands.llm.llm_registry import LLMRegistry
    from openhands.memory.memory import Memory
    from openhands.runtime.base import Runtime


def generate_sid(config: OpenHandsConfig, session_name: str | None = None) -> str:
    """A conversation id: the session name (or a uuid) plus a short hash, at most 32 chars."""
    name = session_name or uuid.uuid4().hex
    secret = config.jwt_secret.get_secret_value() if config.jwt_secret else ""
    digest = hashlib.sha256(f"{name}{secret}".encode()).hexdigest()
    if len(name) > 16:
        return f"{name[:16]}-{digest[:15]}"
    return f"{name}-{digest[: 31 - len(name)]}"[:32]


def create_file_store(config: OpenHandsConfig) -> FileStore:
    return get_file_store_from_config(config)


def create_registry_and_conversation_stats(
    config: OpenHandsConfig, sid: str, user_id: str | None = None
) -> tuple[LLMRegistry, ConversationStats, OpenHandsConfig]:
    from openhands.llm.conversation_stats import ConversationStats
    from openhands.llm.llm_registry import LLMRegistry

    file_store = create_file_store(config)
    stats = ConversationStats(file_store, sid, user_id)
    registry = LLMRegistry(config)
    registry.subscribe(stats.register_llm)
    return registry, stats, config


def create_runtime(
    config: OpenHandsConfig,
    llm_registry: LLMRegistry | None = None,
    sid: str | None = None,
    headless_mode: bool = True,
    agent: Agent | None = None,
    git_provider_tokens: dict[str, str] | None = None,
    event_stream: EventStream | None = None,
    status_callback: Callable[..., None] | None = None,
) -> Runtime:
    """An unconnected runtime of the configured kind, subscribed to the conversation's stream.

    Call ``await runtime.connect()`` (or ``call_async_from_sync(runtime.connect)``) next.
    """
    import openhands.agenthub  # noqa: F401  (registers the agents named in the config)
    from openhands.controller.agent import Agent as AgentBase
    from openhands.runtime import get_runtime_cls

    session_id = sid or generate_sid(config)
    if event_stream is None:
        event_stream = EventStream(session_id, create_file_store(config))
    agent_cls = type(agent) if agent is not None else AgentBase.get_cls(config.default_agent)
    runtime_cls = get_runtime_cls(config.runtime)
    logger.debug("Creating %s for conversation %s", runtime_cls.__name__, session_id)
    return runtime_cls(
        config=config,
        event_stream=event_stream,
        llm_registry=llm_registry,
        sid=session_id,
        plugins=list(agent_cls.sandbox_plugins),
        headless_mode=headless_mode,
        git_provider_tokens=git_provider_tokens,
        status_callback=status_callback,
    )


def initialize_repository_for_runtime(
    runtime: Runtime,
    selected_repository: str | None = None,
    selected_branch: str | None = None,
    repo_url: str | None = None,
) -> str | None:
    """Clone (or init) the workspace repository, then run its setup script and git hooks."""
    directory = runtime.clone_or_init_repo(
        runtime.git_provider_tokens, selected_repository, selected_branch, repo_url=repo_url
    )
    runtime.maybe_run_setup_script()
    runtime.maybe_setup_git_hooks()
    return directory or None


def create_memory(
    runtime: Runtime,
    event_stream: EventStream,
    sid: str,
    selected_repository: str | None = None,
    repo_directory: str | None = None,
    status_callback: Callable[..., None] | None = None,
    conversation_instructions: str | None = None,
    working_dir: str = "/workspace",
    custom_secrets_descriptions: dict[str, str] | None = None,
) -> Memory:
    """Memory for the conversation: runtime info, repository info and workspace microagents."""
    from openhands.memory.memory import Memory

    memory = Memory(event_stream=event_stream, sid=sid, status_callback=status_callback)
    memory.set_conversation_instructions(conversation_instructions)
    memory.set_runtime_info(runtime, custom_secrets_descriptions or {}, working_dir)
    microagents = runtime.get_microagents_from_selected_repo(selected_repository)
    memory.load_user_workspace_microagents(microagents)
    if selected_repository and repo_directory:
        memory.set_repository_info(selected_repository, repo_directory)
    return memory


def create_agent(config: OpenHandsConfig, llm_registry: LLMRegistry) -> Agent:
    import openhands.agenthub  # noqa: F401  (registers the agents)
    from openhands.controller.agent import Agent as AgentBase

    agent_cls = AgentBase.get_cls(config.default_agent)
    agent_config = config.get_agent_config(config.default_agent)
    return agent_cls(config=agent_config, llm_registry=llm_registry)


def create_controller(
    agent: Agent,
    runtime: Runtime,
    config: OpenHandsConfig,
    conversation_stats: ConversationStats,
    headless_mode: bool = True,
    replay_events: list[Event] | None = None,
    status_callback: Callable[..., None] | None = None,
) -> tuple[AgentController, State | None]:
    """The controller, restoring a saved State of this conversation when there is one."""
    from openhands.controller.agent_controller import AgentController
    from openhands.controller.state.state import State

    event_stream = runtime.event_stream
    initial_state: State | None = None
    try:
        initial_state = State.restore_from_session(event_stream.sid, event_stream.file_store)
    except FileNotFoundError:
        initial_state = None
    except Exception as e:
        logger.warning("Could not restore the saved state of %s: %s", event_stream.sid, e)
    controller = AgentController(
        agent=agent,
        event_stream=event_stream,
        conversation_stats=conversation_stats,
        iteration_delta=config.max_iterations,
        budget_per_task_delta=config.max_budget_per_task,
        agent_to_llm_config=config.get_agent_to_llm_config_map(),
        agent_configs=config.get_agent_configs(),
        sid=event_stream.sid,
        file_store=event_stream.file_store,
        confirmation_mode=config.security.confirmation_mode,
        initial_state=initial_state,
        headless_mode=headless_mode,
        status_callback=status_callback,
        replay_events=replay_events,
        security_analyzer=create_security_analyzer(config),
    )
    return controller, initial_state


def create_security_analyzer(config: OpenHandsConfig) -> Any:
    """The configured security analyzer (None when confirmation runs without one)."""
    from openhands.security import create_security_analyzer as create

    name = config.security.security_analyzer
    return create(name) if name else None
