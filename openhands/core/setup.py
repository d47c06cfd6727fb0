"""The steps that build one conversation's parts, and the reference's factories over them.

``ConversationBuilder`` holds one step per part (LLM registry and stats, agent, runtime,
repository, memory, MCP tools, security analyzer, controller). The steps are run, in one
order, by ``openhands.core.assembly.assemble_conversation``, which the web server, the
terminal app and the headless entrypoint call. The ``create_*`` functions are the
reference's public names for single steps (scripts and evaluation harnesses build a runtime
with ``create_runtime``); they are thin callers of the same builder. Nothing here runs at
import time.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeAlias, TypeVar

from openhands.controller.state.state import State
from openhands.core.config import OpenHandsConfig
from openhands.core.logger import openhands_logger as logger
from openhands.events.event import Event
from openhands.events.stream import EventStream
from openhands.storage import get_file_store  # noqa: F401  (the reference's name here)
from openhands.storage.factory import get_file_store_from_config
from openhands.storage.files import FileStore
from openhands.utils.async_utils import GENERAL_TIMEOUT, call_async_from_sync  # noqa: F401

if TYPE_CHECKING:
    from openhands.controller.agent import Agent
    from openhands.controller.agent_controller import AgentController
    from openhands.integrations.provider import PROVIDER_TOKEN_TYPE
    from openhands.llm.conversation_stats import ConversationStats
    from openhands.llm.llm_registry import LLMRegistry
    from openhands.memory.memory import Memory
    from openhands.runtime.base import Runtime
    from openhands.runtime.impl.docker.sandboxes import DockerSandboxes
    from openhands.security.analyzer import SecurityAnalyzer

_T = TypeVar("_T")

# Git provider tokens in either shape callers hold them: the reference's ProviderType →
# ProviderToken mapping (what `get_provider_tokens` and the server's secrets give) or the
# runtime's own `{"github": "<token>"}`.
GitProviderTokens: TypeAlias = "PROVIDER_TOKEN_TYPE | Mapping[str, str]"


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


class ConversationBuilder:
    """Builds the parts of one conversation, one step per method, keeping what it built.

    ``assemble_conversation`` runs the steps in order on one builder (its draft);
    ``headless_mode`` is False for the web server.
    """

    def __init__(
        self,
        config: OpenHandsConfig,
        sid: str,
        *,
        file_store: FileStore | None = None,
        event_stream: EventStream | None = None,
        user_id: str | None = None,
        headless_mode: bool = True,
        status_callback: Callable[..., None] | None = None,
        agent_name: str | None = None,
        retry_listener: Callable[[int, int], None] | None = None,
    ) -> None:
        self.config = config
        self.sid = sid
        if file_store is None and event_stream is not None:
            file_store = event_stream.file_store
        self._file_store = file_store
        self.event_stream = event_stream
        self.user_id = user_id
        self.headless_mode = headless_mode
        self.status_callback = status_callback
        self.agent_name = agent_name or config.default_agent
        self.retry_listener = retry_listener
        self.llm_registry: LLMRegistry | None = None
        self.conversation_stats: ConversationStats | None = None
        self.agent: Agent | None = None
        self.runtime: Runtime | None = None
        self.memory: Memory | None = None
        self.security_analyzer: SecurityAnalyzer | None = None
        self.controller: AgentController | None = None
        self.initial_state: State | None = None
        # The server's Docker sandbox services (warm pool, owner label, deletes); only a
        # DockerRuntime takes them.
        self.docker_sandboxes: DockerSandboxes | None = None

    @property
    def file_store(self) -> FileStore:
        """The conversation's file store (the configured one unless given)."""
        if self._file_store is None:
            self._file_store = create_file_store(self.config)
        return self._file_store

    # --- the steps ---------------------------------------------------------------------------

    def build_llm_registry(self) -> tuple[LLMRegistry, ConversationStats]:
        from openhands.llm.conversation_stats import ConversationStats
        from openhands.llm.llm_registry import LLMRegistry

        registry = LLMRegistry(
            self.config, agent_cls=self.agent_name, retry_listener=self.retry_listener
        )
        stats = ConversationStats(self.file_store, self.sid, self.user_id)
        registry.subscribe(stats.register_llm)
        self.llm_registry, self.conversation_stats = registry, stats
        return registry, stats

    def build_agent(self) -> Agent:
        import openhands.agenthub  # noqa: F401  (registers the agents)
        from openhands.controller.agent import Agent as AgentBase
        from openhands.controller.agent import register_custom_agents

        # `[agent.NAME] classpath = ...` agents, for every entry point that builds one.
        register_custom_agents(self.config)

        registry = self.llm_registry
        if registry is None:
            registry, _ = self.build_llm_registry()
        agent_cls = AgentBase.get_cls(self.agent_name)
        agent_config = self.config.get_agent_config(self.agent_name)
        self.agent = agent_cls(config=agent_config, llm_registry=registry)
        return self.agent

    def build_runtime(
        self,
        *,
        env_vars: dict[str, str] | None = None,
        git_provider_tokens: GitProviderTokens | None = None,
    ) -> Runtime:
        """An unconnected runtime of the configured kind, subscribed to the stream.

        It always starts (or resumes) its own sandbox: attaching to a sandbox of a running
        loop is the per-request REST path's business, never a conversation start's.
        """
        import openhands.agenthub  # noqa: F401  (registers the agents named in the config)
        from openhands.controller.agent import Agent as AgentBase
        from openhands.runtime import get_runtime_cls

        if self.event_stream is None:
            self.event_stream = EventStream(self.sid, self.file_store, self.user_id)
        agent_cls = type(self.agent) if self.agent is not None else None
        if agent_cls is None:
            agent_cls = AgentBase.get_cls(self.agent_name)
        runtime_cls = get_runtime_cls(self.config.runtime)
        logger.debug("Creating %s for conversation %s", runtime_cls.__name__, self.sid)
        extra: dict[str, DockerSandboxes] = {}
        if self.docker_sandboxes is not None:
            from openhands.runtime.impl.docker.docker_runtime import DockerRuntime

            if issubclass(runtime_cls, DockerRuntime):
                extra["sandboxes"] = self.docker_sandboxes
        self.runtime = runtime_cls(
            config=self.config,
            event_stream=self.event_stream,
            llm_registry=self.llm_registry,
            sid=self.sid,
            plugins=list(agent_cls.sandbox_plugins),
            headless_mode=self.headless_mode,
            git_provider_tokens=provider_token_strings(git_provider_tokens),
            status_callback=self.status_callback,
            attach_to_existing=False,
            env_vars=env_vars,
            user_id=self.user_id,
            **extra,
        )
        return self.runtime

    def initialize_repository(
        self,
        selected_repository: str | None = None,
        selected_branch: str | None = None,
        repo_url: str | None = None,
        git_provider_tokens: GitProviderTokens | None = None,
    ) -> str | None:
        """Clone (or init) the workspace repository, then run its setup script and git hooks.

        Without ``repo_url`` the runtime asks the git provider for the clone URL with the
        tokens (given, else the runtime's)."""
        runtime = self._require(self.runtime, "runtime")
        tokens = provider_tokens_by_type(
            git_provider_tokens if git_provider_tokens is not None else runtime.provider_tokens
        )
        return _initialize_repository(
            runtime, tokens, selected_repository, selected_branch, repo_url
        )

    def build_memory(
        self,
        *,
        selected_repository: str | None = None,
        repo_directory: str | None = None,
        selected_branch: str | None = None,
        conversation_instructions: str | None = None,
        working_dir: str | None = None,
        custom_secrets_descriptions: dict[str, str] | None = None,
    ) -> Memory:
        """Memory: runtime info, conversation instructions, repository info and microagents."""
        from openhands.memory.memory import Memory

        runtime = self._require(self.runtime, "runtime")
        event_stream = self._require(self.event_stream, "event stream")
        memory = Memory(
            event_stream=event_stream, sid=self.sid, status_callback=self.status_callback
        )
        memory.set_conversation_instructions(conversation_instructions)
        memory.set_runtime_info(
            runtime,
            custom_secrets_descriptions or {},
            working_dir or self.config.workspace_mount_path_in_sandbox,
        )
        microagents = runtime.get_microagents_from_selected_repo(selected_repository)
        memory.load_user_workspace_microagents(microagents)
        if selected_repository and repo_directory:
            memory.set_repository_info(selected_repository, repo_directory, selected_branch)
        self.memory = memory
        return memory

    async def add_mcp_tools(self) -> None:
        """Give the agent the configured MCP servers' tools (only when MCP is on)."""
        agent = self._require(self.agent, "agent")
        if not getattr(agent.config, "enable_mcp", False):
            return
        # Deferred: the MCP SDK is only loaded when MCP is on.
        from openhands.mcp.utils import add_mcp_tools_to_agent

        await add_mcp_tools_to_agent(agent, self._require(self.runtime, "runtime"), self.memory)

    def build_security_analyzer(self) -> SecurityAnalyzer | None:
        """The analyzer named in ``[security] security_analyzer`` (None: no analyzer)."""
        self.security_analyzer = create_security_analyzer(self.config)
        return self.security_analyzer

    def build_controller(self, replay_events: list[Event] | None = None) -> AgentController:
        """The controller, restoring this conversation's saved State when there is one.

        It gets the analyzer built by ``build_security_analyzer`` (built here if that step
        was skipped), so confirmation mode asks only for what the analyzer rates HIGH.
        """
        from openhands.controller.agent_controller import AgentController

        agent = self._require(self.agent, "agent")
        event_stream = self._require(self.event_stream, "event stream")
        if self.security_analyzer is None:
            self.build_security_analyzer()
        # The stream's own store: a runtime handed in from outside may bring its own.
        self.initial_state = restore_state(self.sid, event_stream.file_store, self.user_id)
        config = self.config
        self.controller = AgentController(
            agent=agent,
            event_stream=event_stream,
            conversation_stats=self.conversation_stats,
            iteration_delta=config.max_iterations,
            budget_per_task_delta=config.max_budget_per_task,
            agent_to_llm_config=config.get_agent_to_llm_config_map(),
            agent_configs=config.get_agent_configs(),
            sid=self.sid,
            file_store=event_stream.file_store,
            user_id=self.user_id,
            confirmation_mode=config.security.confirmation_mode,
            initial_state=self.initial_state,
            headless_mode=self.headless_mode,
            status_callback=self.status_callback,
            replay_events=replay_events,
            security_analyzer=self.security_analyzer,
        )
        return self.controller

    async def close_security_analyzer(self) -> None:
        """Release what the analyzer holds; a failure is logged, never raised."""
        analyzer, self.security_analyzer = self.security_analyzer, None
        if analyzer is None:
            return
        try:
            await analyzer.close()
        except Exception as e:
            logger.warning("Closing the security analyzer of %s failed: %s", self.sid, e)

    @staticmethod
    def _require(part: _T | None, name: str) -> _T:
        if part is None:
            raise RuntimeError(f"Build the {name} first")
        return part


def restore_state(sid: str, file_store: FileStore, user_id: str | None = None) -> State | None:
    """The saved State of a conversation; None for a new one or an unreadable save.

    It goes through ``State.restore_from_session`` looked up on this module's ``State``
    (the reference tests replace it there); the user id is passed only when there is one.
    """
    try:
        if user_id is None:
            return State.restore_from_session(sid, file_store)
        return State.restore_from_session(sid, file_store, user_id)
    except FileNotFoundError:
        return None
    except Exception as e:
        logger.warning("Could not restore the saved state of %s: %s", sid, e)
        return None


# --- one part at a time (the public factories of ``openhands.core.setup``) --------------------


def create_registry_and_conversation_stats(
    config: OpenHandsConfig, sid: str, user_id: str | None = None
) -> tuple[LLMRegistry, ConversationStats, OpenHandsConfig]:
    registry, stats = ConversationBuilder(config, sid, user_id=user_id).build_llm_registry()
    return registry, stats, config


def create_runtime(
    config: OpenHandsConfig,
    llm_registry: LLMRegistry | None = None,
    sid: str | None = None,
    headless_mode: bool = True,
    agent: Agent | None = None,
    git_provider_tokens: GitProviderTokens | None = None,
    event_stream: EventStream | None = None,
    status_callback: Callable[..., None] | None = None,
) -> Runtime:
    """An unconnected runtime of the configured kind, subscribed to the conversation's stream.

    Call ``await runtime.connect()`` (or ``call_async_from_sync(runtime.connect)``) next.
    """
    builder = ConversationBuilder(
        config,
        sid or generate_sid(config),
        event_stream=event_stream,
        headless_mode=headless_mode,
        status_callback=status_callback,
    )
    builder.llm_registry = llm_registry
    builder.agent = agent
    return builder.build_runtime(git_provider_tokens=git_provider_tokens)


def get_provider_tokens() -> PROVIDER_TOKEN_TYPE | None:
    """Git provider tokens from the environment (``GITHUB_TOKEN``, ``GITLAB_TOKEN``,
    ``BITBUCKET_TOKEN``), for headless and terminal runs; None when none is set."""
    import os
    from types import MappingProxyType

    from pydantic import SecretStr

    from openhands.integrations.provider import ProviderToken
    from openhands.integrations.service_types import ProviderType

    tokens = {
        provider: ProviderToken(token=SecretStr(value))
        for provider, variable in (
            (ProviderType.GITHUB, "GITHUB_TOKEN"),
            (ProviderType.GITLAB, "GITLAB_TOKEN"),
            (ProviderType.BITBUCKET, "BITBUCKET_TOKEN"),
        )
        if (value := os.environ.get(variable, "").strip())
    }
    return MappingProxyType(tokens) if tokens else None


def provider_token_strings(tokens: GitProviderTokens | None) -> dict[str, str]:
    """Tokens as the runtime's sandbox takes them, ``{"github": "<token>"}``; providers
    without a token are left out (``openhands.runtime.git_tokens`` converts)."""
    from openhands.runtime.git_tokens import token_strings

    return token_strings(tokens)


def provider_tokens_by_type(tokens: GitProviderTokens | None) -> PROVIDER_TOKEN_TYPE:
    """The reference's shape of ``tokens``; ProviderTokens (and their hosts) pass unchanged."""
    from openhands.runtime.git_tokens import typed_provider_tokens

    return typed_provider_tokens(tokens)


def _secret_of(token: object) -> str:
    secret = getattr(token, "token", None)
    return secret.get_secret_value() if secret is not None else ""


def _initialize_repository(
    runtime: Runtime,
    tokens: PROVIDER_TOKEN_TYPE | None,
    selected_repository: str | None,
    selected_branch: str | None,
    repo_url: str | None = None,
) -> str | None:
    """``runtime.clone_or_init_repo`` (through this module's ``call_async_from_sync``, as
    the reference), then the setup script and git hooks. Without any token a repository
    is cloned from public github.com, with no provider to ask."""
    if (
        selected_repository
        and repo_url is None
        and not any(_secret_of(token) for token in (tokens or {}).values())
    ):
        repo_url = f"https://github.com/{selected_repository}.git"
    # No time limit here: the clone's own commands carry theirs (runtime.md §10.5).
    directory: str | None = call_async_from_sync(
        runtime.clone_or_init_repo,
        None,
        tokens,
        selected_repository,
        selected_branch,
        repo_url=repo_url,
    )
    runtime.maybe_run_setup_script()
    runtime.maybe_setup_git_hooks()
    return directory or None


def initialize_repository_for_runtime(
    runtime: Runtime,
    selected_repository: str | None = None,
    selected_branch: str | None = None,
    repo_url: str | None = None,
    *,
    immutable_provider_tokens: GitProviderTokens | None = None,
) -> str | None:
    """Clone (or init) the workspace repository, then run its setup script and git hooks.

    The clone's tokens: ``immutable_provider_tokens``, else those of the environment
    (``get_provider_tokens``), as in the reference's headless runs, else the runtime's own."""
    tokens = provider_tokens_by_type(immutable_provider_tokens) or get_provider_tokens()
    if not tokens:
        tokens = provider_tokens_by_type(getattr(runtime, "provider_tokens", None))
    return _initialize_repository(runtime, tokens, selected_repository, selected_branch, repo_url)


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
    builder = ConversationBuilder(
        runtime.config, sid, event_stream=event_stream, status_callback=status_callback
    )
    builder.runtime = runtime
    return builder.build_memory(
        selected_repository=selected_repository,
        repo_directory=repo_directory,
        conversation_instructions=conversation_instructions,
        working_dir=working_dir,
        custom_secrets_descriptions=custom_secrets_descriptions,
    )


def create_agent(config: OpenHandsConfig, llm_registry: LLMRegistry) -> Agent:
    builder = ConversationBuilder(config, "")
    builder.llm_registry = llm_registry
    return builder.build_agent()


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
    event_stream = runtime.event_stream
    builder = ConversationBuilder(
        config,
        event_stream.sid,
        event_stream=event_stream,
        headless_mode=headless_mode,
        status_callback=status_callback,
    )
    builder.agent = agent
    builder.conversation_stats = conversation_stats
    controller = builder.build_controller(replay_events)
    return controller, builder.initial_state


def create_security_analyzer(config: OpenHandsConfig) -> SecurityAnalyzer | None:
    """The configured security analyzer (None when confirmation runs without one)."""
    from openhands.security import create_security_analyzer as create

    name = config.security.security_analyzer
    return create(name) if name else None
