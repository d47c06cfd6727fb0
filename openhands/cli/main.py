"""The terminal app's start-up (cli.md §2): ``run_cli_command``.

It loads the config and the stored settings (asking the first-run questions when there
are none), applies the CLI-mode defaults, asks whether the folder is trusted, then runs
sessions (``openhands.cli.session``) until the user stops asking for ``/new``.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from prompt_toolkit import print_formatted_text
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.patch_stdout import StdoutProxy
from prompt_toolkit.shortcuts import clear

from openhands.cli.commands import check_folder_security_agreement
from openhands.cli.deprecation_warning import display_deprecation_warning
from openhands.cli.session import CLIStartError, cleanup_session, run_session
from openhands.cli.settings import modify_llm_settings_basic, modify_search_api_settings
from openhands.cli.shell_config import (
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

__all__ = [
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
        "They run: uvx --python 3.12 --from openhands-ai openhands\n"
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


def _file_task(path: str) -> str:
    content = Path(path).read_text(encoding="utf-8", errors="replace")
    return (
        f"The user has tagged a file '{path}'.\n"
        "Read it and understand what it is about, then ask the user what to do with it.\n"
        f"Here is its content:\n```\n{content}\n```"
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

    current_dir = os.getcwd()
    if not _override_cli_mode(args):
        _apply_cli_mode(config, current_dir)
    elif not config.workspace_base:
        # The folder the user started in is the one to work on, in a sandbox too (where it
        # is mounted as /workspace); 0.59 refused to start without `workspace_base`.
        config.workspace_base = current_dir
        finalize_config(config)

    if sys.stdin.isatty() and not aliases_exist_in_shell_config() and not alias_setup_declined():
        run_alias_setup_flow(config)

    if not config.workspace_base:
        raise ValueError("Workspace base directory not specified")
    if not check_folder_security_agreement(config, current_dir):
        return

    task = _file_task(args.file) if args.file else read_task(args, config.cli_multiline_input)
    conversation_id = getattr(args, "conversation", None)

    from openhands.runtime import get_runtime_cls

    runtime_cls = get_runtime_cls(config.runtime)
    runtime_cls.setup(config)
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
            new_session = await run_session(loop, config, settings_store, current_dir)
    finally:
        runtime_cls.teardown(config)


class _FromLineStart(io.TextIOBase):
    """Writes each log record from the start of a cleared line, so that a record logged
    while the "Initializing..." spinner turns replaces the spinner's line (the spinner
    draws itself again below it) instead of being glued to it."""

    def __init__(self, target: StdoutProxy) -> None:
        self.target = target

    def write(self, text: str) -> int:
        if text:
            self.target.write("\r\x1b[2K" + text)
        return len(text)

    def flush(self) -> None:
        self.target.flush()


class _WithoutTraceback(logging.Formatter):
    """The console's formatter minus tracebacks: in the terminal app an error is one log
    line plus one line of what to do (the file log, when enabled, keeps the traceback)."""

    def __init__(self, inner: logging.Formatter) -> None:
        super().__init__()
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        plain = logging.makeLogRecord(record.__dict__)
        plain.exc_info = plain.exc_text = plain.stack_info = None
        return self.inner.format(plain)


@contextmanager
def _logs_above_the_prompt() -> Iterator[None]:
    """Send the console log lines through prompt_toolkit, which prints them above an open
    prompt or menu instead of into it (the session is assembled while the prompt is open),
    one line each."""
    proxy = StdoutProxy(raw=True)
    stream = _FromLineStart(proxy) if sys.stdout.isatty() else proxy
    moved: list[tuple[logging.StreamHandler[TextIO], TextIO, logging.Formatter | None]] = []
    for handler in logger.handlers:
        if isinstance(handler, logging.StreamHandler) and handler.stream in (
            sys.stderr,
            sys.stdout,
        ):
            moved.append((handler, handler.stream, handler.formatter))
            handler.setStream(cast(TextIO, stream))
            handler.setFormatter(_WithoutTraceback(handler.formatter or logging.Formatter()))
    try:
        yield
    finally:
        for handler, original, formatter in moved:
            handler.setStream(original)
            handler.setFormatter(formatter)
        proxy.close()


def run_cli_command(args: argparse.Namespace) -> None:
    """Run the terminal app on a fresh event loop; errors become one line and an exit code."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    code = 0
    try:
        with _logs_above_the_prompt():
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
        # One line, not a traceback (kept in the log at debug level).
        logger.debug("The terminal app stopped on an error", exc_info=True)
        print_formatted_text(HTML("<ansired>Error: {}</ansired>").format(str(error)))
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
