"""The terminal app's start-up (cli.md §2): arguments, config and stored settings (asking
the first-run questions when there are none), the CLI-mode defaults, the trusted-folder
question, then sessions until the user stops asking for ``/new``.

A session itself lives in ``openhands.cli.session`` (its loop), ``session_assembly`` (the
parts it runs on) and ``session_events`` (its reaction to events); what it draws lives in
``openhands.cli.tui``.

This module is also the namespace scripts and tests patch (cli.md §15): the factories
(``create_agent``, ``create_runtime``...), ``handle_commands``, the ``display_*`` functions
and the session functions are imported here, and the session code looks them up here when
it runs, so a name replaced here is the one used.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from prompt_toolkit import print_formatted_text
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.shortcuts import clear

from openhands.cli.commands import check_folder_security_agreement, handle_commands
from openhands.cli.deprecation_warning import display_deprecation_warning
from openhands.cli.log_file import logs_to_file
from openhands.cli.session import cleanup_session, run_session
from openhands.cli.session_assembly import CLIStartError
from openhands.cli.session_messages import (
    AUTH_ERROR_TEXT,
    OPENHANDS_KEYS_HINT,
    RESUME_AFTER_ERROR_MESSAGE,
    error_hint,
)
from openhands.cli.settings import modify_llm_settings_basic, modify_search_api_settings
from openhands.cli.shell_config import (
    DEFAULT_COMMAND,
    add_aliases_to_shell_config,
    alias_setup_declined,
    aliases_exist_in_shell_config,
    mark_alias_setup_declined,
)
from openhands.cli.tui import (
    UsageMetrics,
    cli_confirm,
    display_agent_running_message,
    display_banner,
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
from openhands.cli.vscode_extension import attempt_vscode_extension_install
from openhands.core.config import OpenHandsConfig, finalize_config, setup_config_from_args
from openhands.core.config.condenser_config import (
    LLMSummarizingCondenserConfig,
    NoOpCondenserConfig,
)
from openhands.core.config.utils import USER_CONFIG_FILE
from openhands.core.logger import openhands_logger as logger
from openhands.core.loop import run_agent_until_done
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
from openhands.storage.jwt_secret import ensure_jwt_secret
from openhands.storage.settings.file_settings_store import FileSettingsStore

if TYPE_CHECKING:
    from openhands.controller.agent import Agent
    from openhands.memory.memory import Memory
    from openhands.runtime.base import Runtime
    from openhands.runtime.impl.local.local_runtime import LocalRuntime
    from openhands.runtime.plugins.requirement import PluginRequirement
    from openhands.storage.data_models.settings import Settings


__all__ = [
    "AUTH_ERROR_TEXT",
    "OPENHANDS_KEYS_HINT",
    "RESUME_AFTER_ERROR_MESSAGE",
    "CLIStartError",
    "FileSettingsStore",
    "LLMSummarizingCondenserConfig",
    "NoOpCondenserConfig",
    "UsageMetrics",
    "aliases_exist_in_shell_config",
    "check_folder_security_agreement",
    "cleanup_session",
    "cli_confirm",
    "create_agent",
    "create_controller",
    "create_file_store",
    "create_memory",
    "create_registry_and_conversation_stats",
    "create_runtime",
    "display_agent_running_message",
    "display_banner",
    "display_event",
    "display_initial_user_prompt",
    "display_initialization_animation",
    "display_runtime_initialization_message",
    "display_welcome_message",
    "error_hint",
    "finalize_config",
    "generate_sid",
    "handle_commands",
    "initialize_repository_for_runtime",
    "logger",
    "main_with_loop",
    "mcp_tools_adder",
    "print_formatted_text",
    "read_confirmation_input",
    "read_prompt_input",
    "read_task",
    "restore_state",
    "run_agent_until_done",
    "run_alias_setup_flow",
    "run_cli_command",
    "run_session",
    "run_setup_flow",
    "setup_config_from_args",
    "start_pause_listener",
    "stop_pause_listener",
    "update_usage_metrics",
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


# --- the config: stored settings, CLI mode, the first message ----------------------------


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


# --- start-up ------------------------------------------------------------------------------


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


# --- the lazily loaded patch point -----------------------------------------------------------


def __getattr__(name: str) -> object:
    # ``add_mcp_tools_to_agent`` is a module attribute as if imported at the top (a patch
    # point, cli.md §15), without loading the MCP client stack before a session needs it.
    if name == "add_mcp_tools_to_agent":
        return mcp_tools_adder()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def mcp_tools_adder() -> Callable[[Agent, Runtime, Memory], Awaitable[object]]:
    """``add_mcp_tools_to_agent``: the one set on this module (patched), else the real one."""
    patched: Callable[[Agent, Runtime, Memory], Awaitable[object]] | None = globals().get(
        "add_mcp_tools_to_agent"
    )
    if patched is not None:
        return patched
    from openhands.mcp.utils import add_mcp_tools_to_agent

    return add_mcp_tools_to_agent
