"""AgentSession: the agent stack of one conversation (server-api §8.2 step 3).

It owns the EventStream and, once started, the assembled conversation: one immutable
``ConversationParts`` from ``openhands.core.assembly.assemble_conversation``, the function
the headless entry and the terminal app call too. The parts are read through the
reference's attribute names (``runtime``, ``controller``, ``memory``, ``llm_registry`` …).
Each part is made by one ``_create_*`` method, which the assembly calls as that part's step,
so a test (or another deployment) can swap a single piece. The agent-stack packages are
imported inside those methods: the server package can be imported, and its REST/socket
layer tested, without them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from types import MappingProxyType
from typing import TYPE_CHECKING, TypeVar, cast

from openhands.core.assembly import (
    AssemblyOptions,
    AssemblySteps,
    ConversationParts,
    assemble_conversation,
)
from openhands.core.config import OpenHandsConfig
from openhands.core.exceptions import AgentRuntimeUnavailableError
from openhands.core.schema import AgentState
from openhands.events.action import ChangeAgentStateAction, MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import AgentStateChangedObservation
from openhands.events.serialization import event_from_dict
from openhands.events.stream import EventStream
from openhands.integrations.provider import ProviderHandler, ProviderToken
from openhands.integrations.service_types import ProviderType
from openhands.runtime.runtime_status import RuntimeStatus, StatusCallback
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.server.session.settings_overrides import apply_settings
from openhands.server.warmup import yield_to_conversation
from openhands.storage.files import FileStore

if TYPE_CHECKING:
    from openhands.controller.agent import Agent
    from openhands.controller.agent_controller import AgentController
    from openhands.core.setup import ConversationBuilder
    from openhands.llm.conversation_stats import ConversationStats
    from openhands.llm.llm_registry import LLMRegistry
    from openhands.memory.memory import Memory
    from openhands.runtime.base import Runtime
    from openhands.runtime.impl.docker.sandboxes import DockerSandboxes
    from openhands.security.analyzer import SecurityAnalyzer

logger = logging.getLogger(__name__)

# How long close() waits for a start in flight, and how long a loop may lack a controller.
STARTUP_GRACE_SECONDS = 90.0

_Token = TypeVar("_Token")


class AgentSession:
    def __init__(
        self,
        sid: str,
        file_store: FileStore,
        llm_registry: LLMRegistry | None = None,
        conversation_stats: ConversationStats | None = None,
        status_callback: StatusCallback | None = None,
        user_id: str | None = None,
    ) -> None:
        """``llm_registry`` and ``conversation_stats``: the caller's own, used by ``start``
        instead of new ones (the reference's order of arguments)."""
        self.sid = sid
        self.user_id = user_id
        self.file_store = file_store
        self.event_stream = EventStream(sid, file_store, user_id)
        self.status_callback: StatusCallback = status_callback or _no_status
        self.config: OpenHandsConfig | None = None
        # The assembled conversation, once start has built it.
        self._parts: ConversationParts | None = None
        # The assembly's draft while start runs (and after a failed start): what the steps
        # have built so far.
        self._builder: ConversationBuilder | None = None
        # Parts set before any assembly began (the caller's registry and stats, or a test's).
        self._loose: dict[str, object] = {
            "llm_registry": llm_registry,
            "conversation_stats": conversation_stats,
        }
        # The server's Docker sandbox services (set by the conversation manager).
        self.docker_sandboxes: DockerSandboxes | None = None
        self.repository_directory: str | None = None
        self.runtime_connected = False
        self.started_at = time.time()
        self._starting = False
        self._closed = False
        self._start_failed = False
        # The sandbox teardown started by close(): the server waits for it when it shuts down.
        self.teardown: asyncio.Future[None] | None = None
        self._startup_done = asyncio.Event()

    # --- state ---------------------------------------------------------------------------

    @property
    def is_closed(self) -> bool:
        return self._closed

    @property
    def start_failed(self) -> bool:
        """The start ended without a controller (no sandbox, or an error on the way)."""
        return self._start_failed

    def get_state(self) -> AgentState | None:
        """The controller's agent state; ERROR when the start failed, or when no controller
        came within the grace time."""
        if self.controller is None:
            if self._start_failed or time.time() - self.started_at > STARTUP_GRACE_SECONDS:
                return AgentState.ERROR
            return None
        state = self.controller.get_agent_state()
        return AgentState(state) if state is not None else None

    # --- the parts (read through the reference's names) ------------------------------------

    def _part(self, name: str) -> object:
        if self._parts is not None:
            return getattr(self._parts, name)
        if self._builder is not None:
            return getattr(self._builder, name)
        return self._loose.get(name)

    def _set_part(self, name: str, value: object) -> None:
        """A part set by a ``_create_*`` hook (or a test) goes where it is read from."""
        if self._parts is not None:
            # Each property passes a value of its part's type; the mapping loses that.
            self._parts = replace(self._parts, **{name: value})  # type: ignore[arg-type]
        elif self._builder is not None:
            setattr(self._builder, name, value)
        else:
            self._loose[name] = value

    @property
    def parts(self) -> ConversationParts | None:
        """The assembled conversation; None before (or after a failed) start."""
        return self._parts

    @property
    def runtime(self) -> Runtime | None:
        return cast("Runtime | None", self._part("runtime"))

    @runtime.setter
    def runtime(self, value: Runtime | None) -> None:
        self._set_part("runtime", value)

    @property
    def memory(self) -> Memory | None:
        return cast("Memory | None", self._part("memory"))

    @memory.setter
    def memory(self, value: Memory | None) -> None:
        self._set_part("memory", value)

    @property
    def controller(self) -> AgentController | None:
        return cast("AgentController | None", self._part("controller"))

    @controller.setter
    def controller(self, value: AgentController | None) -> None:
        self._set_part("controller", value)

    @property
    def llm_registry(self) -> LLMRegistry | None:
        return cast("LLMRegistry | None", self._part("llm_registry"))

    @llm_registry.setter
    def llm_registry(self, value: LLMRegistry | None) -> None:
        self._set_part("llm_registry", value)

    @property
    def conversation_stats(self) -> ConversationStats | None:
        return cast("ConversationStats | None", self._part("conversation_stats"))

    @conversation_stats.setter
    def conversation_stats(self, value: ConversationStats | None) -> None:
        self._set_part("conversation_stats", value)

    @property
    def security_analyzer(self) -> SecurityAnalyzer | None:
        return cast("SecurityAnalyzer | None", self._part("security_analyzer"))

    @security_analyzer.setter
    def security_analyzer(self, value: SecurityAnalyzer | None) -> None:
        self._set_part("security_analyzer", value)

    # --- start ---------------------------------------------------------------------------

    async def start(
        self,
        config: OpenHandsConfig,
        init_data: ConversationInitData,
        initial_message: MessageAction | None = None,
        replay_json: str | None = None,
    ) -> None:
        if self._closed:
            return  # closed before its start began (a stop while waiting for a teardown)
        if self.controller is not None or self._starting:
            raise RuntimeError("Session already started")
        self._starting = True
        # The server's background warm-up stops competing with a conversation's start.
        yield_to_conversation()
        try:
            self.event_stream.add_event(
                AgentStateChangedObservation("", AgentState.LOADING.value),
                EventSource.ENVIRONMENT,
            )
            self.config = config = apply_settings(config, init_data, self.sid)
            self.event_stream.set_secrets(init_data.secret_values())
            replay_events: list[Event] | None = None
            if replay_json:
                initial_message, replay_events = parse_replay(replay_json)
            options = self._assembly_options(config, init_data, replay_events)
            try:
                parts = await assemble_conversation(config, self.sid, options)
            except _NoSandbox:
                self._start_failed = True
                return
            self._parts = parts
            if self._closed:
                # Closed while the parts were being built: nobody will close them later.
                await parts.close()
                return
            await asyncio.to_thread(self._add_initial_events, initial_message)
        except BaseException:
            self._start_failed = True
            raise
        finally:
            self._starting = False
            self._startup_done.set()

    def _assembly_options(
        self,
        config: OpenHandsConfig,
        init_data: ConversationInitData,
        replay_events: list[Event] | None,
    ) -> AssemblyOptions:
        """The web server's assembly: its own stream and store, not headless, every part made
        by this session's ``_create_*`` hooks, a sandbox torn down in the background."""
        return AssemblyOptions(
            event_stream=self.event_stream,
            file_store=self.file_store,
            user_id=self.user_id,
            agent_name=init_data.agent or config.default_agent,
            headless_mode=False,
            status_callback=self.status_callback,
            retry_listener=self._on_llm_retry,
            docker_sandboxes=self.docker_sandboxes,
            replay_events=replay_events,
            steps=_SessionSteps(self, init_data),
            release_runtime=self._release_runtime,
        )

    def _add_initial_events(self, initial_message: MessageAction | None) -> None:
        if initial_message is not None:
            self.event_stream.add_event(initial_message, EventSource.USER)
            next_state = AgentState.RUNNING
        else:
            next_state = AgentState.AWAITING_USER_INPUT
        self.event_stream.add_event(
            ChangeAgentStateAction(next_state.value), EventSource.ENVIRONMENT
        )

    # --- components (each one swappable; the assembly calls them as its steps) ------------

    @property
    def builder(self) -> ConversationBuilder:
        """The assembly's draft: what the steps built so far (only while start runs)."""
        if self._builder is None:
            raise RuntimeError(f"The agent session {self.sid} has not started")
        return self._builder

    def _create_llm_registry(
        self, config: OpenHandsConfig, agent_name: str
    ) -> tuple[LLMRegistry, ConversationStats]:
        registry, stats = self._loose.get("llm_registry"), self._loose.get("conversation_stats")
        if registry is not None and stats is not None:
            return cast("LLMRegistry", registry), cast("ConversationStats", stats)
        return self.builder.build_llm_registry()

    def _create_agent(self, config: OpenHandsConfig, agent_name: str) -> Agent:
        return self.builder.build_agent()

    async def _create_runtime(
        self, config: OpenHandsConfig, agent: Agent, init_data: ConversationInitData
    ) -> bool:
        secrets = init_data.custom_secrets or {}
        env_vars = {name: secret.secret.get_secret_value() for name, secret in secrets.items()}
        tokens = self.override_provider_tokens_with_custom_secret(
            init_data.git_provider_tokens, secrets
        )
        self.runtime = runtime = await asyncio.to_thread(
            partial(
                self.builder.build_runtime,
                env_vars=env_vars,
                git_provider_tokens=token_strings(tokens),
            )
        )
        try:
            await runtime.connect()
        except Exception as error:
            logger.error("Runtime of %s failed to connect: %s", self.sid, error)
            self.status_callback("error", RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, str(error))
            return False
        self.runtime_connected = True
        return True

    async def _setup_workspace(self, init_data: ConversationInitData) -> str | None:
        repository = init_data.selected_repository
        return await asyncio.to_thread(
            self.builder.initialize_repository,
            repository,
            init_data.selected_branch,
            clone_url(init_data) if repository else None,
            token_strings(init_data.git_provider_tokens),
        )

    async def _create_memory(
        self, config: OpenHandsConfig, init_data: ConversationInitData
    ) -> Memory:
        descriptions = {
            name: secret.description for name, secret in (init_data.custom_secrets or {}).items()
        }
        return await asyncio.to_thread(
            partial(
                self.builder.build_memory,
                selected_repository=init_data.selected_repository,
                repo_directory=self.repository_directory,
                selected_branch=init_data.selected_branch,
                conversation_instructions=init_data.conversation_instructions,
                working_dir=config.workspace_mount_path_in_sandbox,
                custom_secrets_descriptions=descriptions,
            )
        )

    async def _add_mcp_tools(self, config: OpenHandsConfig, agent: Agent) -> None:
        if not agent.config.enable_mcp:
            return
        try:
            import openhands.mcp.utils  # noqa: F401
        except ImportError:
            logger.info("MCP tools are not available in this build")
            return
        await self.builder.add_mcp_tools()

    def _create_security_analyzer(self, config: OpenHandsConfig) -> SecurityAnalyzer | None:
        """The analyzer the user picked (settings or ``[security]``); None for none."""
        return self.builder.build_security_analyzer()

    def _create_controller(
        self,
        config: OpenHandsConfig,
        agent: Agent,
        init_data: ConversationInitData,
        replay_events: list[Event] | None,
    ) -> AgentController:
        return self.builder.build_controller(replay_events)

    async def _release_runtime(self, runtime: Runtime) -> None:
        """Tearing a sandbox down is slow: it runs in the background, and the manager makes
        a new start of this conversation wait for it (``teardown``)."""
        task = asyncio.get_running_loop().run_in_executor(None, runtime.close)
        task.add_done_callback(_log_failure)
        self.teardown = task

    @staticmethod
    def override_provider_tokens_with_custom_secret(
        git_provider_tokens: Mapping[ProviderType, _Token] | None,
        custom_secrets: Mapping[str, object] | None,
    ) -> Mapping[ProviderType, _Token] | None:
        """The provider tokens less those a custom secret replaces: a secret named like a
        provider's sandbox variable (``github_token`` or ``GITHUB_TOKEN``) is the user's
        explicit choice, so the sandbox gets it rather than the stored token."""
        if not git_provider_tokens or not custom_secrets:
            return git_provider_tokens
        names = {name.lower() for name in custom_secrets}
        return MappingProxyType(
            {
                provider: token
                for provider, token in git_provider_tokens.items()
                if ProviderHandler.get_provider_env_key(provider) not in names
            }
        )

    def _on_llm_retry(self, attempt: int, max_attempts: int) -> None:
        self.status_callback(
            "info",
            RuntimeStatus.LLM_RETRY,
            f"Retrying LLM request, {attempt} / {max_attempts}",
        )

    # --- close ---------------------------------------------------------------------------

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._starting:
            try:
                await asyncio.wait_for(self._startup_done.wait(), STARTUP_GRACE_SECONDS)
            except TimeoutError:
                logger.warning("Closing %s while its start is still in flight", self.sid)
        self.event_stream.close()
        # The parts close what the assembly built (a failed start released its own already).
        if self._parts is not None:
            await self._parts.close()


class _NoSandbox(AgentRuntimeUnavailableError):
    """The session's runtime step got no sandbox (already reported through the status
    callback): the start ends without a controller rather than with an error."""


class _SessionSteps(AssemblySteps):
    """The assembly's steps as this session's ``_create_*`` hooks, called with the arguments
    they declare and honoured in what they return (or set on the session)."""

    def __init__(self, session: AgentSession, init_data: ConversationInitData) -> None:
        self.session = session
        self.init_data = init_data

    def _adopt(self, draft: ConversationBuilder) -> AgentSession:
        # The hooks read (``self.builder``) and set (``self.runtime = ...``) the draft.
        self.session._builder = draft
        return self.session

    async def llm_registry(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        session = self._adopt(draft)
        registry, stats = await asyncio.to_thread(
            session._create_llm_registry, draft.config, draft.agent_name
        )
        draft.llm_registry, draft.conversation_stats = registry, stats

    async def agent(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        session = self._adopt(draft)
        draft.agent = await asyncio.to_thread(session._create_agent, draft.config, draft.agent_name)

    async def runtime(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        session = self._adopt(draft)
        agent = cast("Agent", draft.agent)
        if not await session._create_runtime(draft.config, agent, self.init_data):
            raise _NoSandbox(f"No sandbox for conversation {session.sid}")

    async def repository(self, draft: ConversationBuilder, options: AssemblyOptions) -> str | None:
        session = self._adopt(draft)
        session.repository_directory = await session._setup_workspace(self.init_data)
        return session.repository_directory

    async def memory(
        self, draft: ConversationBuilder, options: AssemblyOptions, repo_directory: str | None
    ) -> None:
        session = self._adopt(draft)
        draft.memory = await session._create_memory(draft.config, self.init_data)

    async def mcp_tools(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        session = self._adopt(draft)
        await session._add_mcp_tools(draft.config, cast("Agent", draft.agent))

    async def security_analyzer(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        session = self._adopt(draft)
        draft.security_analyzer = session._create_security_analyzer(draft.config)

    async def controller(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        session = self._adopt(draft)
        replay = list(options.replay_events) if options.replay_events is not None else None
        draft.controller = await asyncio.to_thread(
            session._create_controller,
            draft.config,
            cast("Agent", draft.agent),
            self.init_data,
            replay,
        )


def token_strings(tokens: Mapping[ProviderType, ProviderToken] | None) -> dict[str, str]:
    """Provider tokens as the runtime takes them: ``{"github": "<token>"}``."""
    return {
        provider.value: token.token.get_secret_value()
        for provider, token in (tokens or {}).items()
        if token.token is not None and token.token.get_secret_value()
    }


def _no_status(kind: str, status_id: str, message: str) -> None:
    """The status callback of a session nobody watches."""


_DEFAULT_HOSTS = {"github": "github.com", "gitlab": "gitlab.com", "bitbucket": "bitbucket.org"}


def clone_url(init_data: ConversationInitData) -> str:
    """An authenticated https clone URL of the selected repository."""
    repository = init_data.selected_repository or ""
    tokens = init_data.git_provider_tokens or {}
    provider = init_data.git_provider or next((p for p, t in tokens.items() if t.has_token), None)
    token = tokens.get(provider) if provider is not None else None
    host = (token.host if token is not None else None) or _DEFAULT_HOSTS.get(
        provider.value if provider is not None else "github", "github.com"
    )
    if token is None or token.token is None or not token.token.get_secret_value():
        return f"https://{host}/{repository}.git"
    secret = token.token.get_secret_value()
    if provider is not None and provider.value == "gitlab":
        return f"https://oauth2:{secret}@{host}/{repository}.git"
    if provider is not None and provider.value == "bitbucket":
        return f"https://x-token-auth:{secret}@{host}/{repository}.git"
    return f"https://{secret}@{host}/{repository}.git"


def parse_replay(replay_json: str) -> tuple[MessageAction, list[Event]]:
    """A trajectory to replay: its first event (a user message) starts the conversation."""
    data = json.loads(replay_json)
    if not isinstance(data, list) or not data:
        raise ValueError("replay_json must be a non-empty list of events")
    events = [event_from_dict(item) for item in data]
    first = events[0]
    if not isinstance(first, MessageAction) or first.source != EventSource.USER:
        raise ValueError("The first event of a replay must be a user message")
    initial = MessageAction(
        content=first.content, image_urls=first.image_urls, file_urls=first.file_urls
    )
    return initial, events[1:]


def _log_failure(future: asyncio.Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:
        logger.error("Closing a runtime failed: %s", future.exception())
