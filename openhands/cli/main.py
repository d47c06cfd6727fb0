"""The terminal app (cli.md §2, §5–§11): start-up (``run_cli_command``) and one
conversation at a time (``run_session``).

Start-up loads the config and the stored settings (asking the first-run questions when there
are none), applies the CLI-mode defaults, asks whether the folder is trusted, then runs
sessions until the user stops asking for ``/new``.

In a session the prompt opens at once while the conversation is assembled in the
background, with the same ``openhands.core.setup`` factories as headless runs and the
server. Events come from the stream's threads; they are handed to this loop and handled one
at a time, so prompts and menus never overlap.

The names this module imports (``create_agent``, ``create_runtime``, ``handle_commands``,
``display_event``...) are the ones scripts and tests patch here (cli.md §15): the session
code looks them up in this module when it runs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import print_formatted_text
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.shortcuts import clear

from openhands.cli.commands import check_folder_security_agreement
from openhands.cli.deprecation_warning import display_deprecation_warning
from openhands.cli.log_file import logs_to_file
from openhands.cli.settings import modify_llm_settings_basic, modify_search_api_settings
from openhands.cli.shell_config import (
    DEFAULT_COMMAND,
    add_aliases_to_shell_config,
    alias_setup_declined,
    aliases_exist_in_shell_config,
    mark_alias_setup_declined,
)
from openhands.cli.tui import cli_confirm, display_banner
from openhands.cli.vscode_extension import attempt_vscode_extension_install
from openhands.core.config import OpenHandsConfig, finalize_config, setup_config_from_args
from openhands.core.config.condenser_config import (
    LLMSummarizingCondenserConfig,
    NoOpCondenserConfig,
)
from openhands.core.config.utils import USER_CONFIG_FILE
from openhands.core.logger import openhands_logger as logger
from openhands.storage.jwt_secret import ensure_jwt_secret
from openhands.storage.settings.file_settings_store import FileSettingsStore

if TYPE_CHECKING:
    from openhands.storage.data_models.settings import Settings


import importlib
import threading
from collections import deque
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, cast

from openhands.cli.commands import handle_commands
from openhands.cli.tui import (
    UsageMetrics,
    display_agent_running_message,
    display_event,
    display_initial_user_prompt,
    display_initialization_animation,
    display_runtime_initialization_message,
    display_welcome_message,
    read_confirmation_input,
    read_prompt_input,
    start_pause_listener,
    stop_pause_listener,
)
from openhands.cli.utils import update_usage_metrics
from openhands.controller import policies
from openhands.core.loop import run_agent_until_done
from openhands.core.schema import AgentState
from openhands.core.schema.exit_reason import ExitReason
from openhands.core.setup import (
    create_agent,
    create_controller,
    create_file_store,
    create_memory,
    create_registry_and_conversation_stats,
    create_runtime,
    generate_sid,
    initialize_repository_for_runtime,
    restore_state,
)
from openhands.events.action import Action, ChangeAgentStateAction, MessageAction
from openhands.events.action.action import ActionSecurityRisk
from openhands.events.event import Event, EventSource
from openhands.events.observation import AgentStateChangedObservation
from openhands.events.stream import EventStreamSubscriber

if TYPE_CHECKING:
    from openhands.controller.agent import Agent
    from openhands.controller.agent_controller import AgentController
    from openhands.controller.state.state import State
    from openhands.memory.memory import Memory
    from openhands.runtime.base import Runtime
    from openhands.runtime.impl.local.local_runtime import LocalRuntime
    from openhands.runtime.plugins.requirement import PluginRequirement
    from openhands.storage.settings.file_settings_store import FileSettingsStore


__all__ = [
    "CLIStartError",
    "cleanup_session",
    "main_with_loop",
    "read_task",
    "run_alias_setup_flow",
    "run_cli_command",
    "run_session",
    "run_setup_flow",
]


# --- settings and first-run flows ---------------------------------------------------------


async def run_setup_flow(config: OpenHandsConfig, settings_store: FileSettingsStore) -> None:
    """First start: the banner, the basic LLM settings, then the optional search key."""
    display_banner(session_id="setup")
    print_formatted_text(HTML("<grey>No settings found. Starting initial setup...</grey>\n"))
    await modify_llm_settings_basic(config, settings_store)
    question = "Would you like to configure Search API settings (optional)?"
    if cli_confirm(config, question, ["Yes", "No"]) == 0:
        await modify_search_api_settings(config, settings_store)


def run_alias_setup_flow(config: OpenHandsConfig) -> None:
    """Offer the ``openhands``/``oh`` shell aliases; nothing is written without a yes."""
    print_formatted_text(HTML("\n<gold>🚀 Welcome to OpenHands CLI!</gold>\n"))
    print_formatted_text(
        "Shell aliases let you start OpenHands from any folder with `openhands` or `oh`.\n"
        f"They run: {DEFAULT_COMMAND}\n"
    )
    choice = cli_confirm(
        config, "Set up shell aliases?", ["Yes, set up aliases", "No, skip this step"]
    )
    if choice == 0:
        if add_aliases_to_shell_config():
            print_formatted_text(HTML("<ansigreen>✅ Aliases added successfully!</ansigreen>"))
    else:
        mark_alias_setup_declined()


def _apply_settings(config: OpenHandsConfig, settings: Settings, llm_config_flag: bool) -> None:
    """cli.md §2 step 6: what the stored settings change in the loaded config."""
    if settings.agent:
        config.default_agent = settings.agent
    llm = config.get_llm_config()
    lacks_model_or_key = not llm.model or llm.api_key is None
    if not llm_config_flag and lacks_model_or_key and settings.llm_model and settings.llm_api_key:
        llm.model = settings.llm_model
        llm.api_key = settings.llm_api_key
        if settings.llm_base_url:
            llm.base_url = settings.llm_base_url
        config.set_llm_config(llm)
    config.security.confirmation_mode = bool(settings.confirmation_mode)
    if config.search_api_key is None and settings.search_api_key is not None:
        config.search_api_key = settings.search_api_key
    agent_config = config.get_agent_config(config.default_agent)
    if settings.enable_default_condenser:
        agent_config.condenser = LLMSummarizingCondenserConfig(llm_config=config.get_llm_config())
        config.enable_default_condenser = True
    else:
        agent_config.condenser = NoOpCondenserConfig()
        config.enable_default_condenser = False
    # Stored back where it came from: a named section, or the default one it fell back to.
    section = config.default_agent if config.default_agent in config.agents else "agent"
    config.set_agent_config(agent_config, section)


def _apply_cli_mode(config: OpenHandsConfig, current_dir: str) -> None:
    """cli.md §2 step 8: work in this folder on the host, and ask before acting."""
    config.runtime = "cli"
    if not config.workspace_base:
        config.workspace_base = current_dir
    config.security.confirmation_mode = True
    config.security.security_analyzer = "llm"
    config.get_agent_config(config.default_agent).cli_mode = True
    finalize_config(config)


def read_task(args: argparse.Namespace, multiline: bool) -> str:
    """The first message: ``-t``, else all of a piped stdin, else nothing."""
    if getattr(args, "task", ""):
        return str(args.task)
    if not sys.stdin.isatty():
        return sys.stdin.read().strip()
    return ""


def _setup_plugins(
    runtime_cls: type, config: OpenHandsConfig
) -> list[PluginRequirement | str] | None:
    """The default agent's sandbox plugins for ``LocalRuntime.setup`` (its warm servers);
    other runtimes' ``setup`` takes only the config."""
    import openhands.agenthub  # noqa: F401  (registers the agents)
    from openhands.controller.agent import Agent
    from openhands.runtime.impl.local.local_runtime import LocalRuntime

    if not issubclass(runtime_cls, LocalRuntime):
        return None
    try:
        return list(Agent.get_cls(config.default_agent).sandbox_plugins)
    except Exception:  # an unknown agent: its own start reports it
        return None


def _file_task(path: str) -> str:
    """``-f FILE``: the first message names the file, carries its text, and asks the agent to
    read it, then ask the user what to do with it (cli.md §2 step 11)."""
    with open(path, "r", encoding="utf-8") as handle:  # noqa: UP015 (the mode, spelt out)
        content = handle.read()
    return (
        f"The user has tagged a file '{path}'.\n"
        "Please read and understand the following file content first:\n\n"
        f"```\n{content}\n```\n\n"
        "After reviewing the file, please ask the user what they would like to do with it."
    )


def _override_cli_mode(args: argparse.Namespace) -> bool:
    value = getattr(args, "override_cli_mode", False)
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes", "on")
    return bool(value)


async def main_with_loop(loop: asyncio.AbstractEventLoop, args: argparse.Namespace) -> None:
    """Start-up (cli.md §2), then sessions until the user stops asking for ``/new``."""
    if args.log_level:
        logger.setLevel(args.log_level.upper())
    elif not os.environ.get("LOG_LEVEL"):
        logger.setLevel("WARNING")
    if not Path(args.config_file).exists():
        args.config_file = os.path.expanduser(USER_CONFIG_FILE)
    config = setup_config_from_args(args)
    ensure_jwt_secret(config)  # salts the ids of named conversations (generate_sid)
    # Here, not at the top: the agent registry is not needed for the first prompt.
    from openhands.controller.agent import register_custom_agents

    register_custom_agents(config)  # the settings flow lists the agents
    attempt_vscode_extension_install()

    settings_store = await FileSettingsStore.get_instance(config, None)
    settings = await settings_store.load()
    banner_shown = False
    if settings is None:
        clear()
        await run_setup_flow(config, settings_store)
        banner_shown = True
        settings = await settings_store.load()
    if settings is not None:
        _apply_settings(config, settings, bool(args.llm_config))

    if not _override_cli_mode(args):
        _apply_cli_mode(config, os.getcwd())
    elif not config.workspace_base:
        # The folder the user started in is the one to work on, in a sandbox too (where it
        # is mounted as /workspace); 0.59 refused to start without `workspace_base`.
        config.workspace_base = os.getcwd()
        finalize_config(config)

    if sys.stdin.isatty() and not aliases_exist_in_shell_config() and not alias_setup_declined():
        run_alias_setup_flow(config)

    if not config.workspace_base:
        raise ValueError("Workspace base directory not specified")
    # The folder the agent works on (the current one unless the config names another) is
    # the one the user is asked to trust (cli.md §2.1).
    current_dir = str(config.workspace_base)
    if not check_folder_security_agreement(config, current_dir):
        return

    task = _file_task(args.file) if args.file else read_task(args, config.cli_multiline_input)
    conversation_id = getattr(args, "conversation", None)

    from openhands.runtime import get_runtime_cls

    runtime_cls = get_runtime_cls(config.runtime)
    plugins = _setup_plugins(runtime_cls, config)
    if plugins is None:
        runtime_cls.setup(config)
    else:  # LocalRuntime: its warm servers need the agent's plugins
        cast("type[LocalRuntime]", runtime_cls).setup(config, plugins=plugins)
    try:
        new_session = await run_session(
            loop,
            config,
            settings_store,
            current_dir,
            task or None,
            session_name=args.name or None,
            skip_banner=banner_shown,
            conversation_id=conversation_id,
        )
        while new_session:
            new_session = await run_session(loop, config, settings_store, current_dir, None)
    finally:
        runtime_cls.teardown(config)


# Imported in the background from the start (see ``start_background_imports``), in this
# order: LiteLLM (with the LLM wrapper; seconds), then the MCP client stack (half a second).
_BACKGROUND_IMPORTS = ("openhands.mcp.utils",)


def _import_in_background() -> None:
    from openhands.llm.preload import preload_litellm  # already loaded by the caller

    preload_litellm()  # logs its own failure; the session imports again and reports it
    for name in _BACKGROUND_IMPORTS:
        try:
            importlib.import_module(name)
        except Exception:
            logger.debug("Background import of %s failed", name, exc_info=True)


def start_background_imports() -> threading.Thread:
    """Start importing what the first session needs, in a daemon thread.

    The session is assembled only once the settings are loaded, the folder trusted and the
    banner shown; before this, the LiteLLM import (3-5 s on a busy 2-core machine) all
    happened then, and the first message waited for it behind "Initializing...". Started
    here, it overlaps the start-up and the user's typing. The assembly waits for it
    (``wait_for_preload``) rather than importing the same package from a second thread.
    """
    # The small preload module itself is imported here, so that the thread starts with
    # nothing but LiteLLM's own modules left to import.
    importlib.import_module("openhands.llm.preload")
    thread = threading.Thread(
        target=_import_in_background, name="openhands-cli-preload", daemon=True
    )
    thread.start()
    return thread


def run_cli_command(args: argparse.Namespace) -> None:
    """Run the terminal app on a fresh event loop; errors become one line and an exit code."""
    start_background_imports()
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    code = 0
    # Log lines between the panels broke the screen: they go to ~/.openhands/logs, and so
    # does the traceback of an error that ends the app (inside the block on purpose).
    with logs_to_file() as log_path:
        try:
            loop.run_until_complete(main_with_loop(loop, args))
        except KeyboardInterrupt:
            print_formatted_text("⚠️ Session was interrupted: interrupted\n")
        except ConnectionRefusedError as error:
            print_formatted_text(f"Connection refused: {error}")
            code = 1
        except CLIStartError as error:
            print_formatted_text(HTML("<ansired>{}</ansired>").format(str(error)))
            code = 1
        except Exception as error:
            logger.error("The terminal app stopped on an error", exc_info=True)
            print_formatted_text(HTML("<ansired>Error: {}</ansired>").format(str(error)))
            if log_path is not None:
                print_formatted_text(HTML("<grey>Details: {}</grey>").format(str(log_path)))
            code = 1
        finally:
            code = _close_loop(loop) or code
            display_deprecation_warning()
    if code:
        sys.exit(code)


def _close_loop(loop: asyncio.AbstractEventLoop) -> int:
    try:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()
    except Exception as error:
        print_formatted_text(f"Error during cleanup: {error}")
        return 1
    return 0


# --- one session -----------------------------------------------------------------------

AUTH_ERROR_TEXT = "Authentication error with the LLM provider. Please check your API key."
OPENHANDS_KEYS_HINT = (
    "If you use OpenHands models, get an API key at https://app.all-hands.dev/settings/api-keys"
)
RESUME_AFTER_ERROR_MESSAGE = (
    "The previous session of this conversation ended with an error. Do not pick the task up "
    "again on your own: tell me briefly what you were doing, and ask me how to go on."
)
# Prompting waits in these states; the session ends in the last two.
PROMPT_STATES = frozenset({AgentState.AWAITING_USER_INPUT, AgentState.FINISHED, AgentState.PAUSED})
END_STATES = (AgentState.STOPPED, AgentState.ERROR)


# The agent is working (thinking, or running a confirmed action): the spinner turns.
WORKING_STATES = frozenset({AgentState.RUNNING, AgentState.USER_CONFIRMED})
# How long a confirmation question waits for the held action's event to be shown first.
ACTION_WAIT_SECONDS = 10.0


class CLIStartError(Exception):
    """Start-up failed for a reason the user can fix; the message says what to do."""


# --- one session --------------------------------------------------------------------------


@dataclass
class _Parts:
    agent: Agent
    runtime: Runtime
    memory: Memory
    controller: AgentController
    initial_state: State | None


@dataclass
class _SessionState:
    """What one session remembers between events (never saved)."""

    usage_metrics: UsageMetrics = field(default_factory=UsageMetrics)
    exit_reason: ExitReason = ExitReason.INTENTIONAL
    new_session_requested: bool = False
    reload_microagents: bool = False
    always_confirm: bool = False
    auto_highrisk_confirm: bool = False
    prompt_open: bool = False


@dataclass
class _PromptRequest:
    """Queued instead of an event: open the prompt at start, handling ``first_input``
    (what the user typed while the conversation was being assembled) first."""

    first_input: str | None = None


async def run_session(
    loop: asyncio.AbstractEventLoop,
    config: OpenHandsConfig,
    settings_store: FileSettingsStore,
    current_dir: str,
    task_content: str | None = None,
    conversation_instructions: str | None = None,
    session_name: str | None = None,
    skip_banner: bool = False,
    conversation_id: str | None = None,
) -> bool:
    """Run one conversation until the agent stops; True when the user asked for ``/new``.

    The prompt opens at once: the agent, the LLM client and the runtime are assembled in
    the background meanwhile (seconds, mostly importing LiteLLM), and what the user typed
    is handled once they are ready, with a spinner if they are not yet.
    """
    sid = conversation_id or generate_sid(config, session_name)
    state = _SessionState()
    restored = await asyncio.to_thread(restore_state, sid, create_file_store(config))
    display_runtime_initialization_message(config.runtime)
    assembly = asyncio.create_task(_assemble(config, sid, conversation_instructions))
    try:
        clear()
        if not skip_banner:
            display_banner(session_id=sid)
        welcome, first_message = _welcome_and_first_message(config, restored, task_content)
        display_welcome_message(welcome)
        first_input = None
        if first_message is not None:
            display_initial_user_prompt(first_message)
        else:
            first_input = await _read_first_input(config)
        parts = await _wait_for_assembly(assembly)
    finally:
        if not assembly.done():
            assembly.cancel()
            await asyncio.gather(assembly, return_exceptions=True)

    event_stream = parts.runtime.event_stream
    queue: asyncio.Queue[Event | _PromptRequest] = asyncio.Queue()

    def on_event(event: Event) -> None:
        # The stream's delivery thread: hand the event over, handle it on this loop.
        loop.call_soon_threadsafe(queue.put_nowait, event)

    event_stream.subscribe(EventStreamSubscriber.MAIN, on_event, sid)
    if first_message is not None:
        event_stream.add_event(MessageAction(content=first_message), EventSource.USER)
    else:
        queue.put_nowait(_PromptRequest(first_input))

    handler = _EventHandler(config, settings_store, current_dir, sid, parts, state, queue)
    consumer = asyncio.create_task(handler.consume())
    try:
        await run_agent_until_done(parts.controller, parts.runtime, parts.memory, list(END_STATES))
    finally:
        # Read before the clean-up, which moves the agent to STOPPED.
        ended_in_error = parts.controller.get_agent_state() == AgentState.ERROR
        last_error = parts.controller.state.last_error or ""
        consumer.cancel()
        await asyncio.gather(consumer, return_exceptions=True)
        await handler.spinner.stop()
        await stop_pause_listener()
        event_stream.unsubscribe(EventStreamSubscriber.MAIN, sid)
        await cleanup_session(loop, parts.agent, parts.runtime, parts.controller)

    if ended_in_error:
        print_formatted_text(HTML("<ansired>{}</ansired>").format(error_hint(config, last_error)))
    if state.exit_reason == ExitReason.INTENTIONAL:
        print_formatted_text("✅ Session terminated successfully.\n")
    else:
        print_formatted_text(f"⚠️ Session was interrupted: {state.exit_reason.value}\n")
    return state.new_session_requested


async def _read_first_input(config: OpenHandsConfig) -> str:
    while True:
        text = await read_prompt_input(config, "", multiline=config.cli_multiline_input)
        if text.strip():
            return text


async def _wait_for_assembly(assembly: asyncio.Task[_Parts]) -> _Parts:
    """The assembled parts; the "Initializing..." spinner runs while they are not ready."""
    if assembly.done():
        return assembly.result()
    loaded = threading.Event()
    spinner = threading.Thread(
        target=display_initialization_animation, args=("Initializing...", loaded), daemon=True
    )
    spinner.start()
    try:
        return await assembly
    finally:
        loaded.set()
        await asyncio.to_thread(spinner.join)


async def _assemble(
    config: OpenHandsConfig, sid: str, conversation_instructions: str | None
) -> _Parts:
    """Registry, agent, runtime (connected), memory, MCP tools and controller.

    The slow, blocking steps run in worker threads so the prompt stays responsive; the
    controller is built here, on the loop, which it keeps for the steps it schedules.
    """
    from openhands.llm.preload import wait_for_preload

    await asyncio.to_thread(wait_for_preload)  # the import started at launch, if any
    registry, stats, _ = await asyncio.to_thread(
        create_registry_and_conversation_stats, config, sid
    )
    agent = await asyncio.to_thread(create_agent, config, registry)
    runtime = await asyncio.to_thread(
        partial(create_runtime, config, registry, sid=sid, headless_mode=True, agent=agent)
    )
    try:
        await runtime.connect()
    except Exception as error:
        await asyncio.to_thread(runtime.close)
        raise CLIStartError(_runtime_start_problem(config, error)) from error
    repo_directory = None
    if config.sandbox.selected_repo:
        repo_directory = await asyncio.to_thread(
            initialize_repository_for_runtime, runtime, config.sandbox.selected_repo
        )
    memory = await asyncio.to_thread(
        partial(
            create_memory,
            runtime,
            runtime.event_stream,
            sid,
            selected_repository=config.sandbox.selected_repo,
            repo_directory=repo_directory,
            conversation_instructions=conversation_instructions,
            working_dir=str(runtime.workspace_root),
        )
    )
    if agent.config.enable_mcp:
        # Off the loop: importing the MCP client stack would freeze the prompt and spinner.
        await asyncio.to_thread(importlib.import_module, "openhands.mcp.utils")
        await _add_mcp_tools_to_agent()(agent, runtime, memory)
    await asyncio.to_thread(importlib.import_module, "openhands.controller.agent_controller")
    controller, initial_state = create_controller(agent, runtime, config, stats)
    return _Parts(agent, runtime, memory, controller, initial_state)


def _runtime_start_problem(config: OpenHandsConfig, error: Exception) -> str:
    text = str(error)
    if config.runtime in ("docker", "eventstream") and (
        "docker" in text.lower() or type(error).__module__.startswith("docker")
    ):
        return (
            "Docker is not running or not reachable: start the Docker engine, or run "
            "`openhands` without --override-cli-mode to work directly in this folder. "
            f"({text})"
        )
    return f"Could not start the {config.runtime} runtime: {text}"


def _welcome_and_first_message(
    config: OpenHandsConfig, restored: State | None, task: str | None
) -> tuple[str, str | None]:
    """The welcome text and the message to send first (None: open the prompt)."""
    welcome = _mcp_summary(config) + "What do you want to build?"
    if restored is None:
        return welcome, task or None
    last_error = restored.last_error or ""
    if "ERROR_LLM_AUTHENTICATION" in last_error:
        text = AUTH_ERROR_TEXT
        if config.get_llm_config().model.startswith("openhands/"):
            text += "\n" + OPENHANDS_KEYS_HINT
        return text, None
    if last_error:
        return welcome, RESUME_AFTER_ERROR_MESSAGE
    return welcome + "\nLoading previous conversation.", None


def _mcp_summary(config: OpenHandsConfig) -> str:
    if not config.get_agent_config(config.default_agent).enable_mcp:
        return ""
    mcp = config.mcp
    counts = (len(mcp.stdio_servers), len(mcp.sse_servers), len(mcp.shttp_servers))
    if not any(counts):
        return ""
    text = (
        f"Using {counts[0]} stdio MCP servers, {counts[1]} SSE MCP servers and "
        f"{counts[2]} SHTTP MCP servers."
    )
    from openhands.mcp.error_collector import mcp_error_collector

    if mcp_error_collector.has_errors():
        text += " ✗ MCP errors detected (type /mcp → select View errors to view)"
    return text + "\n\n"


def error_hint(config: OpenHandsConfig, last_error: str) -> str:
    """One line saying what to do after the agent stopped with ``last_error`` (the log line
    above it says what happened)."""
    llm = config.get_llm_config()
    if "ERROR_LLM_AUTHENTICATION" in last_error:
        return AUTH_ERROR_TEXT + " Change it with /settings, then continue with --conversation."
    if (
        "ERROR_LLM_SERVICE_UNAVAILABLE" in last_error
        or "ERROR_LLM_INTERNAL_SERVER_ERROR" in last_error
    ):
        where = llm.base_url or llm.model
        return (
            f"No answer from the LLM ({where}). Check the model, the base URL and your "
            "network (/settings), then continue with --conversation."
        )
    if "ERROR_LLM_OUT_OF_CREDITS" in last_error:
        return "The LLM provider refused the request: out of credits. Check your account."
    return f"The agent stopped with an error: {last_error or 'unknown error'}"


class _Spinner:
    """``[⠋] Working...`` below the last output while the agent works: long LLM calls and
    commands show progress. Stopped (its line erased) before anything is printed."""

    def __init__(self) -> None:
        self._done: threading.Event | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None or not sys.stdout.isatty():
            return
        self._done = threading.Event()
        self._thread = threading.Thread(
            target=display_initialization_animation,
            args=("Working...", self._done),
            daemon=True,
        )
        self._thread.start()

    async def stop(self) -> None:
        thread, done = self._thread, self._done
        if thread is None or done is None:
            return
        self._thread = self._done = None
        done.set()
        await asyncio.to_thread(thread.join)


class _EventHandler:
    """Shows each event and reacts to agent state changes, one event at a time."""

    def __init__(
        self,
        config: OpenHandsConfig,
        settings_store: FileSettingsStore,
        current_dir: str,
        sid: str,
        parts: _Parts,
        state: _SessionState,
        queue: asyncio.Queue[Event | _PromptRequest],
    ) -> None:
        self.config = config
        self.settings_store = settings_store
        self.current_dir = current_dir
        self.sid = sid
        self.parts = parts
        self.state = state
        self.queue = queue
        self.event_stream = parts.runtime.event_stream
        self.is_paused = asyncio.Event()
        # Events taken from the queue early (while waiting for a held action's event),
        # handled before anything newer.
        self.backlog: deque[Event] = deque()
        self.spinner = _Spinner()

    async def consume(self) -> None:
        while True:
            item = self.backlog.popleft() if self.backlog else await self.queue.get()
            try:
                if isinstance(item, _PromptRequest):
                    await self.spinner.stop()
                    await self.prompt_for_next_task("", item.first_input)
                else:
                    await self.handle(item)
            except asyncio.CancelledError:
                raise
            except Exception:
                # One bad event must not end the session's display.
                logger.exception("The terminal could not handle an event")

    async def handle(self, event: Event) -> None:
        await self.spinner.stop()
        display_event(event, self.config)
        update_usage_metrics(event, self.state.usage_metrics)
        if not isinstance(event, AgentStateChangedObservation):
            if self.parts.controller.get_agent_state() in WORKING_STATES:
                self.spinner.start()
            return
        agent_state = event.agent_state
        # USER_CONFIRMED too: the confirmed action is running, and can take long (the
        # reference listened only in RUNNING, so a confirmed command could not be paused).
        if agent_state in WORKING_STATES:
            display_agent_running_message()
            start_pause_listener(asyncio.get_running_loop(), self.is_paused, self.event_stream)
            self.spinner.start()
            return
        if agent_state != AgentState.PAUSED:
            await stop_pause_listener()
        if self.parts.controller.get_agent_state() != agent_state:
            # A stale change (the agent has moved on since): asking now would answer the
            # wrong question or open a prompt while the agent works.
            return
        if agent_state == AgentState.AWAITING_USER_CONFIRMATION:
            await self.confirm_pending_action()
        elif agent_state == AgentState.PAUSED:
            await stop_pause_listener()
            self.is_paused.clear()
            await self.prompt_for_next_task(agent_state)
        elif agent_state in PROMPT_STATES:
            if self.state.reload_microagents:
                self.reload_microagents()
            await self.prompt_for_next_task(agent_state)

    async def show_until(self, action: Action) -> None:
        """Show queued events up to ``action``: the controller announces the state before
        it stores the action, and the user must see the command before the question."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ACTION_WAIT_SECONDS
        while (remaining := deadline - loop.time()) > 0:
            try:
                event = await asyncio.wait_for(self.queue.get(), remaining)
            except TimeoutError:
                return
            if isinstance(event, _PromptRequest):
                continue
            if isinstance(event, AgentStateChangedObservation):
                self.backlog.append(event)
                continue
            display_event(event, self.config)
            update_usage_metrics(event, self.state.usage_metrics)
            if event is action or (event.id == action.id != Event.INVALID_ID):
                return

    def reload_microagents(self) -> None:
        runtime = self.parts.runtime
        self.parts.memory.load_user_workspace_microagents(
            runtime.get_microagents_from_selected_repo(None)
        )
        self.state.reload_microagents = False

    async def prompt_for_next_task(self, agent_state: str, first_input: str | None = None) -> None:
        """Read input until something closes the prompt (a message, /exit, /new...)."""
        if self.state.prompt_open or self.is_paused.is_set():
            return
        self.state.prompt_open = True
        try:
            while True:
                if first_input is not None:
                    text, first_input = first_input, None
                else:
                    text = await read_prompt_input(
                        self.config, agent_state, multiline=self.config.cli_multiline_input
                    )
                if not text.strip():
                    continue
                close_repl, reload, new_session, reason = await handle_commands(
                    text,
                    self.event_stream,
                    self.state.usage_metrics,
                    self.sid,
                    self.config,
                    self.current_dir,
                    self.settings_store,
                    agent_state,
                )
                self.state.exit_reason = reason
                self.state.reload_microagents = self.state.reload_microagents or reload
                self.state.new_session_requested = new_session
                if close_repl:
                    return
        finally:
            self.state.prompt_open = False

    async def confirm_pending_action(self) -> None:
        """Ask about the held action, unless a session-wide answer already covers it."""
        if self.is_paused.is_set():
            return
        pending = self.parts.controller.pending_action
        # Only actions whose wire form can say "awaiting" are stored (and shown) before
        # the answer; the controller keeps the others back.
        if pending is not None and policies.carries_confirmation_state(pending):
            await self.show_until(pending)
        risk = getattr(pending, "security_risk", ActionSecurityRisk.UNKNOWN)
        if self.state.always_confirm or (
            self.state.auto_highrisk_confirm and risk != ActionSecurityRisk.HIGH
        ):
            answer = "yes"
        else:
            answer = await read_confirmation_input(self.config, security_risk=risk)
        if answer == "always":
            self.state.always_confirm = True
        elif answer == "auto_highrisk":
            self.state.auto_highrisk_confirm = True
        if answer == "no":
            decision = AgentState.USER_REJECTED
            print_formatted_text(
                HTML("<skyblue>Okay, please tell me what I should do next/instead.</skyblue>")
            )
        else:
            decision = AgentState.USER_CONFIRMED
        self.event_stream.add_event(ChangeAgentStateAction(agent_state=decision), EventSource.USER)


async def cleanup_session(
    loop: asyncio.AbstractEventLoop,
    agent: Agent,
    runtime: Runtime,
    controller: AgentController,
) -> None:
    """Save the state, give leftover tasks up to 2 s (then cancel them), then close the
    agent, runtime and controller. A failure is logged, never raised: the session is over."""
    try:
        controller.save_state()
    except Exception as error:
        logger.warning("Could not save the conversation state: %s", error)
    current = asyncio.current_task(loop)
    leftovers = [t for t in asyncio.all_tasks(loop) if t is not current and not t.done()]
    if leftovers:
        _, still_running = await asyncio.wait(leftovers, timeout=2)
        for task in still_running:
            task.cancel()
    try:
        agent.reset()
        await asyncio.to_thread(runtime.close)
        await controller.close()
    except Exception as error:
        logger.error(f"Error during session cleanup: {error}")
        return
    analyzer = controller.security_analyzer
    if analyzer is not None:
        try:
            await analyzer.close()
        except Exception as error:
            logger.warning("Closing the security analyzer failed: %s", error)


def __getattr__(name: str) -> object:
    # ``add_mcp_tools_to_agent`` is a module attribute as if imported at the top (a patch
    # point, cli.md §15), without loading the MCP client stack before a session needs it.
    if name == "add_mcp_tools_to_agent":
        return _add_mcp_tools_to_agent()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _add_mcp_tools_to_agent() -> Callable[[Agent, Runtime, Memory], Awaitable[object]]:
    patched: Callable[[Agent, Runtime, Memory], Awaitable[object]] | None = globals().get(
        "add_mcp_tools_to_agent"
    )
    if patched is not None:
        return patched
    from openhands.mcp.utils import add_mcp_tools_to_agent

    return add_mcp_tools_to_agent
