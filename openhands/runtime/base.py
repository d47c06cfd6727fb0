"""The Runtime seam: turns every runnable Action on the stream into an Observation.

A Runtime subscribes to the conversation's EventStream as ``runtime``. Each action is
handled on the subscriber's own thread (one at a time, in id order); the resulting
observation is published with ``cause`` = the action id and the action's tool-call
metadata. Concrete runtimes (Docker, local process, the host) only implement how an action
reaches the sandbox; dispatch and environment setup live here, the workspace's repository,
set-up script, git hooks, microagents and git queries in ``workspace_setup``.
"""

from __future__ import annotations

import asyncio
import atexit
import copy
import json
import os
import shlex
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Final, TypeVar

import httpx

from openhands.core.config import MCPConfig, MCPStdioServerConfig, OpenHandsConfig
from openhands.core.exceptions import AgentRuntimeDisconnectedError
from openhands.core.logger import openhands_logger as logger
from openhands.events.action import (
    Action,
    ActionConfirmationStatus,
    AgentThinkAction,
    BrowseInteractiveAction,
    BrowseURLAction,
    CmdRunAction,
    FileEditAction,
    FileReadAction,
    FileWriteAction,
    IPythonRunCellAction,
    MCPAction,
    TaskTrackingAction,
)
from openhands.events.event import Event, EventSource
from openhands.events.observation import (
    AgentThinkObservation,
    ErrorObservation,
    NullObservation,
    Observation,
    TaskTrackingObservation,
    UserRejectObservation,
)
from openhands.events.serialization.registry import ACTION_TYPE_TO_CLASS
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.integrations.provider import ProviderHandler
from openhands.integrations.service_types import ProviderType
from openhands.runtime import workspace_setup
from openhands.runtime.git_tokens import (
    AnyProviderTokens,
    export_latest_tokens,
    token_strings,
    typed_provider_tokens,
)
from openhands.runtime.org_microagents import (
    GITLAB_ORG_REPOSITORY,
    ORG_REPOSITORY,
    load_org_microagents,
)
from openhands.runtime.plugins.requirement import PluginRequirement
from openhands.runtime.runtime_status import RuntimeStatus, StatusCallback
from openhands.runtime.utils.git_handler import GitHandler
from openhands.runtime.workspace_setup import WorkspaceGit, run_hidden
from openhands.storage.locations import get_conversation_dir
from openhands.utils.async_utils import GENERAL_TIMEOUT, call_async_from_sync
from openhands.utils.sync_bridge import run_coroutine_blocking

if TYPE_CHECKING:
    from openhands.llm.llm_registry import LLMRegistry
    from openhands.microagent.microagent import BaseMicroagent

# A plugin the sandbox should start: a requirement, or just its name (e.g. "vscode").
Plugin = PluginRequirement | str


def _env_vars_from_host() -> dict[str, str]:
    """Host ``SANDBOX_ENV_<NAME>`` variables become ``<NAME>`` inside the sandbox."""
    prefix = "SANDBOX_ENV_"
    return {k[len(prefix) :]: v for k, v in os.environ.items() if k.startswith(prefix)}


class Runtime(ABC):
    """Base class of every runtime. Subclasses implement the action methods and ``connect``."""

    sid: str
    config: OpenHandsConfig
    initial_env_vars: dict[str, str]
    attach_to_existing: bool
    status_callback: StatusCallback | None
    runtime_status: RuntimeStatus | None
    # The sandbox's session key (runtimes whose sandbox has one set it).
    session_api_key: str | None = None

    def __init__(
        self,
        config: OpenHandsConfig,
        event_stream: EventStream,
        llm_registry: LLMRegistry | None = None,
        sid: str = "default",
        plugins: Sequence[Plugin] | None = None,
        env_vars: dict[str, str] | None = None,
        status_callback: StatusCallback | None = None,
        attach_to_existing: bool = False,
        headless_mode: bool = False,
        user_id: str | None = None,
        git_provider_tokens: AnyProviderTokens | None = None,
    ) -> None:
        self.sid = sid
        self.event_stream = event_stream
        self.llm_registry = llm_registry
        self.status_callback = status_callback
        self.attach_to_existing = attach_to_existing
        self.headless_mode = headless_mode
        self.user_id = user_id
        # The tokens as given (hosts kept) for provider look-ups, and as the sandbox's
        # plain strings, ``{"github": "<token>"}``.
        self.provider_tokens = typed_provider_tokens(git_provider_tokens)
        self.git_provider_tokens = token_strings(self.provider_tokens)
        self.runtime_status = None
        self._runtime_initialized = False
        self.plugins: list[Plugin] = list(plugins or [])
        if not headless_mode and not any(_plugin_name(p) == "vscode" for p in self.plugins):
            self.plugins.append("vscode")
        self.config = copy.deepcopy(config)
        # Actions the runtime ran itself and only shows on the stream (the setup script).
        self._shown_only_ids: set[int] = set()
        self._shown_only_lock = threading.Lock()
        self._closed = False
        # Built on first use: subclasses may only know their scripts dir once connected.
        self._workspace_git: WorkspaceGit | None = None
        self._workspace_git_lock = threading.Lock()
        self.event_stream.subscribe(EventStreamSubscriber.RUNTIME, self.on_event, self.sid)
        atexit.register(self._close_at_exit)

        self.initial_env_vars = _env_vars_from_host()
        if self.config.sandbox.enable_auto_lint:
            self.initial_env_vars["ENABLE_AUTO_LINT"] = "true"
        self.initial_env_vars.update(env_vars or {})
        for name, token in self.git_provider_tokens.items():
            self.initial_env_vars[f"{name.upper()}_TOKEN"] = token

    # --- lifecycle ---------------------------------------------------------------------

    @abstractmethod
    async def connect(self) -> None:
        """Start or attach to the sandbox and wait until it answers."""

    def close(self) -> None:
        """Stop listening to the stream. Subclasses return early when ``closed`` is set."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self._close_at_exit)
        try:
            self.event_stream.unsubscribe(EventStreamSubscriber.RUNTIME, self.sid)
        except Exception:  # the stream may be closed already
            pass

    def _close_at_exit(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def runtime_initialized(self) -> bool:
        return self._runtime_initialized

    @classmethod
    def setup(cls, config: OpenHandsConfig, headless_mode: bool = False) -> None:
        """Class-level preparation before the first runtime of this kind (optional)."""
        return None

    @classmethod
    def teardown(cls, config: OpenHandsConfig) -> None:
        """Class-level cleanup (optional)."""
        return None

    @classmethod
    async def delete(cls, conversation_id: str) -> None:
        """Remove whatever the runtime keeps for ``conversation_id`` (optional)."""
        return None

    def set_runtime_status(self, status: RuntimeStatus, msg: str = "", level: str = "info") -> None:
        self.runtime_status = status
        if self.status_callback is not None:
            self.status_callback(level, status, msg)

    def log(self, level: str, message: str) -> None:
        getattr(logger, level)(f"[runtime {self.sid}] {message}")

    # --- event handling ----------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        if not isinstance(event, Action):
            return
        with self._shown_only_lock:
            if event.id in self._shown_only_ids:
                self._shown_only_ids.discard(event.id)
                return
        self._handle_action(event)

    def _handle_action(self, action: Action) -> None:
        if action.timeout is None:
            action.set_hard_timeout(self.config.sandbox.timeout, blocking=False)
        if self.provider_tokens and ProviderHandler.check_cmd_action_for_provider_token_ref(action):
            run_coroutine_blocking(self._export_latest_git_provider_tokens(action))
        try:
            if isinstance(action, MCPAction):
                # Subscriber threads have no running loop: the call gets one of its own.
                observation = run_coroutine_blocking(self.call_tool_mcp(action))
            else:
                observation = self.run_action(action)
        except PermissionError as e:
            observation = ErrorObservation(str(e))
        except (httpx.NetworkError, AgentRuntimeDisconnectedError) as e:
            self.log("error", f"runtime disconnected while running {action.action}: {e}")
            self.set_runtime_status(RuntimeStatus.ERROR_RUNTIME_DISCONNECTED, str(e), "error")
            return
        except Exception as e:
            self.log("error", f"unexpected error while running {action.action}: {e!r}")
            self.set_runtime_status(RuntimeStatus.ERROR, f"{type(e).__name__}: {e}", "error")
            return
        if isinstance(observation, NullObservation):
            return
        observation.cause = action.id
        observation.tool_call_metadata = action.tool_call_metadata
        source = action.source if action.source is not None else EventSource.AGENT
        self.event_stream.add_event(observation, source)

    async def _export_latest_git_provider_tokens(self, event: Action) -> None:
        """Give the sandbox the latest tokens of the providers ``event``'s command names."""
        await export_latest_tokens(self, self.provider_tokens, event)

    @property
    def provider_handler(self) -> ProviderHandler:
        """The runtime's tokens for provider look-ups (clone URLs, org repositories)."""
        return ProviderHandler(
            self.provider_tokens,
            external_auth_id=self.user_id,
            external_token_manager=True,
            session_api_key=self.session_api_key,
            sid=self.sid,
        )

    def run_action(self, action: Action) -> Observation:
        """Dispatch one action (runtime.md §10.3); the order of the checks matters."""
        if not action.runnable:
            if isinstance(action, AgentThinkAction):
                return AgentThinkObservation("Your thought has been logged.")
            if isinstance(action, TaskTrackingAction):
                return self._task_tracking(action)
            return NullObservation("")
        confirmation = getattr(action, "confirmation_state", None)
        if confirmation == ActionConfirmationStatus.AWAITING_CONFIRMATION:
            return NullObservation("")
        if action.action not in ACTION_TYPE_TO_CLASS:
            return ErrorObservation(f"Action {action.action} does not exist.")
        route = SANDBOX_ACTIONS.get(action.action)
        if route is None:
            return ErrorObservation(
                f"Action {action.action} is not supported in the current runtime."
            )
        if confirmation == ActionConfirmationStatus.REJECTED:
            return UserRejectObservation(
                "Action has been rejected by the user! Waiting for further user input."
            )
        return route(self, action)

    def _task_tracking(self, action: TaskTrackingAction) -> Observation:
        path = f"{get_conversation_dir(self.sid, self.user_id)}TASKS.md"
        store = self.event_stream.file_store
        if action.command == "plan":
            lines = ["# Task List", ""]
            for i, task in enumerate(action.task_list, start=1):
                status = task.get("status", "todo")
                icon = {"todo": "⏳", "in_progress": "🔄", "done": "✅"}.get(status, "⏳")
                lines.append(f"{i}. {icon} {task.get('title', '')}")
                if task.get("notes"):
                    lines.append(f"   {task['notes']}")
            store.write(path, "\n".join(lines) + "\n")
            return TaskTrackingObservation(
                f"Task list has been updated with {len(action.task_list)} items. "
                f"Stored in session directory: {path}",
                command="plan",
                task_list=action.task_list,
            )
        try:
            content = store.read(path)
        except FileNotFoundError:
            content = 'No task list found. Use the "plan" command to create one.'
        return TaskTrackingObservation(content, command="view", task_list=[])

    # --- the sandbox operations each runtime implements -------------------------------
    # One method per sandbox action type (``SANDBOX_ACTIONS`` below routes to them); the
    # HTTP runtimes send them all the same way, ``CLIRuntime`` runs each on the host.

    @abstractmethod
    def run(self, action: CmdRunAction) -> Observation: ...

    @abstractmethod
    def run_ipython(self, action: IPythonRunCellAction) -> Observation: ...

    @abstractmethod
    def read(self, action: FileReadAction) -> Observation: ...

    @abstractmethod
    def write(self, action: FileWriteAction) -> Observation: ...

    @abstractmethod
    def edit(self, action: FileEditAction) -> Observation: ...

    @abstractmethod
    def browse(self, action: BrowseURLAction) -> Observation: ...

    @abstractmethod
    def browse_interactive(self, action: BrowseInteractiveAction) -> Observation: ...

    @abstractmethod
    def copy_to(self, host_src: str, sandbox_dest: str, recursive: bool = False) -> None: ...

    @abstractmethod
    def copy_from(self, path: str) -> Path: ...

    @abstractmethod
    def list_files(self, path: str | None = None) -> list[str]: ...

    async def call_tool_mcp(self, action: MCPAction) -> Observation:
        """Call an MCP tool from the host (runtime.md §10.8); never raises for MCP trouble."""
        # Imported here: the MCP SDK is only loaded by conversations that use it.
        from openhands.mcp.utils import call_tool_from_config

        # get_mcp_config may hand stdio servers to the sandbox over blocking HTTP.
        config = await asyncio.to_thread(self.get_mcp_config)
        return await call_tool_from_config(config, action, conversation_id=self.sid)

    def get_mcp_config(
        self, extra_stdio_servers: list[MCPStdioServerConfig] | None = None
    ) -> MCPConfig:
        """A copy of ``config.mcp`` plus ``extra_stdio_servers`` (names already there win).

        Runtimes with a sandbox override this to start the stdio servers there.
        """
        config = self.config.mcp.model_copy(deep=True)
        known = {server.name for server in config.stdio_servers}
        extra: list[MCPStdioServerConfig] = []
        for server in extra_stdio_servers or []:
            if server.name not in known:
                known.add(server.name)
                extra.append(server)
        if extra:
            config.stdio_servers = [*config.stdio_servers, *extra]
        return config

    # --- environment -------------------------------------------------------------------

    def setup_initial_env(self) -> None:
        if self.attach_to_existing:
            return
        self.add_env_vars(self.initial_env_vars)
        if self.config.sandbox.runtime_startup_env_vars:
            self.add_env_vars(self.config.sandbox.runtime_startup_env_vars)
        self._setup_git_config()

    def _setup_git_config(self) -> None:
        if self.config.runtime == "cli":
            return
        name, email = self.config.git_user_name, self.config.git_user_email
        obs = run_hidden(
            self,
            f"git config --global user.name {shlex.quote(name)} && "
            f"git config --global user.email {shlex.quote(email)}",
        )
        if obs.exit_code != 0:
            self.log("warning", f"could not set the git identity: {obs.content}")

    def add_env_vars(self, env_vars: dict[str, str]) -> None:
        if not env_vars:
            return
        env_vars = {k.upper(): str(v) for k, v in env_vars.items()}
        if any(_plugin_name(p) == "jupyter" for p in self.plugins):
            code = "import os\n" + "".join(
                f"os.environ[{k!r}] = {v!r}\n" for k, v in env_vars.items()
            )
            self.run_ipython(IPythonRunCellAction(code, include_extra=False))
        exports = "; ".join(f"export {k}={json.dumps(v)}" for k, v in env_vars.items())
        obs = run_hidden(self, exports)
        if obs.exit_code != 0:
            raise RuntimeError(f"Failed to add env vars [{', '.join(env_vars)}] to environment")
        appends = " && ".join(
            f"(grep -q '^export {k}=' ~/.bashrc || echo {shlex.quote(f'export {k}={json.dumps(v)}')}"
            " >> ~/.bashrc)"
            for k, v in env_vars.items()
        )
        obs = run_hidden(self, appends)
        if obs.exit_code != 0:
            raise RuntimeError(f"Failed to add env vars [{', '.join(env_vars)}] to .bashrc")

    # --- repository and workspace --------------------------------------------------------

    @property
    def workspace_root(self) -> Path:
        return Path(self.config.workspace_mount_path_in_sandbox)

    async def clone_or_init_repo(
        self,
        git_provider_tokens: AnyProviderTokens | None,
        selected_repository: str | None,
        selected_branch: str | None,
        repo_url: str | None = None,
    ) -> str:
        """Clone the selected repository into the workspace (or ``git init`` when asked).

        Without ``repo_url`` the provider hosting the repository gives the authenticated
        clone URL, asked with ``git_provider_tokens`` (else the runtime's own). Returns the
        repository directory name, or "" when nothing was cloned.
        """
        if selected_repository and repo_url is None:
            tokens = typed_provider_tokens(git_provider_tokens) or self.provider_tokens
            handler = self.provider_handler
            if tokens is not self.provider_tokens:
                handler = ProviderHandler(
                    tokens, external_auth_id=self.user_id, external_token_manager=True
                )
            repo_url = await handler.get_authenticated_git_url(selected_repository)
        return await asyncio.to_thread(
            workspace_setup.clone_or_init_repo,
            self,
            selected_repository,
            selected_branch,
            repo_url,
            init_git=self.config.init_git_in_empty_workspace,
        )

    def maybe_run_setup_script(self) -> None:
        """Run ``.openhands/setup.sh`` once, blocking and hidden, if the workspace has one."""
        workspace_setup.maybe_run_setup_script(self, self._run_shown_on_stream)

    def _run_shown_on_stream(self, action: Action) -> Observation:
        """Run ``action`` here and show it, with its result, on the stream as the
        environment's. Our own subscription skips it: the reference let it run a second time.
        """
        with self._shown_only_lock:
            self.event_stream.add_event(action, EventSource.ENVIRONMENT)
            self._shown_only_ids.add(action.id)
        observation = self.run_action(action)
        observation.cause = action.id
        self.event_stream.add_event(observation, EventSource.ENVIRONMENT)
        return observation

    def maybe_setup_git_hooks(self) -> None:
        workspace_setup.maybe_setup_git_hooks(self)

    def get_microagents_from_selected_repo(
        self, selected_repository: str | None
    ) -> list[BaseMicroagent]:
        """Microagents of the workspace (and of the selected repository, if any), after
        those its owner shares from an org-level repository (``org_microagents``)."""
        shared = (
            self.get_microagents_from_org_or_user(selected_repository)
            if selected_repository
            else []
        )
        return shared + workspace_setup.load_workspace_microagents(
            self,
            selected_repository,
            lambda directory: self._load_microagents_from_directory(directory, "repository"),
        )

    def get_microagents_from_org_or_user(self, selected_repository: str) -> list[BaseMicroagent]:
        """The microagents ``<owner>/.openhands`` (GitLab: ``<owner>/openhands-config``)
        shares with every repository of the owner of ``selected_repository``."""
        return load_org_microagents(
            self,
            selected_repository,
            provider_url=lambda owner: self._org_repository_url(selected_repository, owner),
            load_dir=lambda directory: self._load_microagents_from_directory(
                directory, "org-level"
            ),
        )

    def _org_repository_url(self, selected_repository: str, owner: str) -> str:
        """The authenticated clone URL of the owner's org-level repository, from the
        provider (for when the clone's ``origin`` cannot tell)."""
        is_gitlab = self._is_gitlab_repository(selected_repository)
        name = GITLAB_ORG_REPOSITORY if is_gitlab else ORG_REPOSITORY
        url: str = call_async_from_sync(
            self.provider_handler.get_authenticated_git_url, GENERAL_TIMEOUT, f"{owner}/{name}"
        )
        return url

    def _is_gitlab_repository(self, repo_name: str) -> bool:
        """Whether the provider hosting ``repo_name`` is GitLab (False when unknown)."""
        try:
            handler = ProviderHandler(self.provider_tokens)
            repository = call_async_from_sync(
                handler.verify_repo_provider, GENERAL_TIMEOUT, repo_name
            )
            return bool(repository.git_provider == ProviderType.GITLAB)
        except Exception:
            return False

    def _load_microagents_from_directory(
        self, microagents_dir: Path, source_description: str
    ) -> list[BaseMicroagent]:
        """The microagents in a sandbox directory ([] when it has none or cannot be read)."""
        self.log("debug", f"loading {source_description} microagents from {microagents_dir}")
        return workspace_setup.load_microagents_in(self, microagents_dir)

    # --- git helpers ---------------------------------------------------------------------

    # Whether the git helper scripts may be written into the sandbox when it lacks them.
    _copy_git_scripts: ClassVar[bool] = True

    @property
    def _git(self) -> WorkspaceGit:
        with self._workspace_git_lock:
            if self._workspace_git is None:
                self._workspace_git = WorkspaceGit(
                    self, self.helper_scripts_dir, copy_scripts=self._copy_git_scripts
                )
            return self._workspace_git

    @property
    def git_handler(self) -> GitHandler:
        """Runs the git helper scripts through this runtime's hidden static commands."""
        return self._git.handler

    def get_git_changes(self, cwd: str) -> list[dict[str, str]] | None:
        return self._git.changes(cwd)

    def get_git_diff(self, file_path: str, cwd: str) -> dict[str, str]:
        return self._git.diff(file_path, cwd)

    def get_workspace_branch(self, repo_path: str | None = None) -> str | None:
        return self._git.branch(repo_path or str(self.workspace_root))

    @property
    def helper_scripts_dir(self) -> str:
        return "/openhands/code/openhands/runtime/utils"

    # --- what the UI shows ---------------------------------------------------------------

    @property
    def web_hosts(self) -> dict[str, int]:
        return {}

    @property
    def vscode_url(self) -> str | None:
        return None

    @property
    def additional_agent_instructions(self) -> str:
        return ""

    def subscribe_to_shell_stream(self, callback: Callable[[str], None] | None = None) -> bool:
        return False


def _plugin_name(plugin: Plugin) -> str:
    return plugin if isinstance(plugin, str) else plugin.name


# --- the sandbox action table ---------------------------------------------------------------

_A = TypeVar("_A", bound=Action)
SandboxRoute = Callable[[Runtime, Action], Observation]


def _route(kind: type[_A], method: Callable[[Runtime, _A], Observation]) -> SandboxRoute:
    def call(runtime: Runtime, action: Action) -> Observation:
        if not isinstance(action, kind):  # only a class reusing another's type name gets here
            raise TypeError(f"{type(action).__name__} is not a {kind.__name__}")
        return method(runtime, action)

    return call


# The actions a sandbox runs, by type → the Runtime method that runs it (runtime.md §10.3).
# A runnable type missing here is "not supported in the current runtime".
SANDBOX_ACTIONS: Final[Mapping[str, SandboxRoute]] = {
    CmdRunAction.action: _route(CmdRunAction, lambda runtime, a: runtime.run(a)),
    IPythonRunCellAction.action: _route(
        IPythonRunCellAction, lambda runtime, a: runtime.run_ipython(a)
    ),
    FileReadAction.action: _route(FileReadAction, lambda runtime, a: runtime.read(a)),
    FileWriteAction.action: _route(FileWriteAction, lambda runtime, a: runtime.write(a)),
    FileEditAction.action: _route(FileEditAction, lambda runtime, a: runtime.edit(a)),
    BrowseURLAction.action: _route(BrowseURLAction, lambda runtime, a: runtime.browse(a)),
    BrowseInteractiveAction.action: _route(
        BrowseInteractiveAction, lambda runtime, a: runtime.browse_interactive(a)
    ),
}
