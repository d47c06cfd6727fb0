"""The slash commands of the terminal app (cli.md §6.2) and the trusted-folder question (§2.1).

``handle_commands`` is the one entry the loop calls with what the user typed: a slash command
is handled here, anything else becomes the user's next message to the agent. The ``/mcp``
menus (cli.md §6.4) live in ``commands_mcp``; their public names are imported here, where
scripts and tests replace them (cli.md §15), and the menus look them up here when they run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.shortcuts import clear, print_container
from prompt_toolkit.widgets import Frame, TextArea

from openhands.cli.commands_mcp import (
    MCP_DOCS_URL,
    add_mcp_server,
    add_shttp_server,
    add_sse_server,
    add_stdio_server,
    display_mcp_servers,
    get_config_file_path,
    handle_mcp_command,
    handle_mcp_errors_command,
    load_config_file,
    remove_mcp_server,
    save_config_file,
)
from openhands.cli.pt_style import COLOR_GREY
from openhands.cli.settings import (
    display_settings,
    modify_llm_settings_advanced,
    modify_llm_settings_basic,
    modify_search_api_settings,
)
from openhands.cli.tui import (
    UsageMetrics,
    cli_confirm,
    display_help,
    display_mcp_errors,
    display_shutdown_message,
    display_status,
)
from openhands.cli.utils import add_local_config_trusted_dir, get_local_config_trusted_dirs
from openhands.core.schema import AgentState
from openhands.core.schema.exit_reason import ExitReason
from openhands.events.action import ChangeAgentStateAction, MessageAction
from openhands.events.event import EventSource

if TYPE_CHECKING:
    from openhands.core.config import OpenHandsConfig
    from openhands.events.stream import EventStream
    from openhands.storage.settings.file_settings_store import FileSettingsStore

__all__ = [
    "MCP_DOCS_URL",
    "add_mcp_server",
    "add_shttp_server",
    "add_sse_server",
    "add_stdio_server",
    "check_folder_security_agreement",
    "collect_input",
    "display_mcp_errors",
    "display_mcp_servers",
    "get_config_file_path",
    "handle_commands",
    "handle_exit_command",
    "handle_help_command",
    "handle_init_command",
    "handle_mcp_command",
    "handle_mcp_errors_command",
    "handle_new_command",
    "handle_resume_command",
    "handle_settings_command",
    "handle_status_command",
    "init_repository",
    "load_config_file",
    "print_formatted_text",
    "prompt_for_restart",
    "remove_mcp_server",
    "restart_cli",
    "save_config_file",
]

REPO_MD_PATH = Path(".openhands") / "microagents" / "repo.md"

# What /init asks the agent to do (our wording).
INIT_REPOSITORY_MESSAGE = """Please explore this repository and write what a new contributor \
needs into `.openhands/microagents/repo.md`:
1. What the project is and does, in a few sentences.
2. How the files are organised: the main directories and what lives in each.
3. How to set it up, build it and run its tests (look at the CI configuration, Makefiles, \
package manifests and READMEs to find the real commands).
4. Anything else that helps someone start: conventions, linters, pitfalls.
Keep it to a few short paragraphs. Read before you write, and do not change any other file."""

CANCEL_WORDS = frozenset({"/exit", "/cancel", "cancel"})


# --- small prompts ---------------------------------------------------------------------------


async def collect_input(config: OpenHandsConfig, prompt_text: str) -> str | None:
    """One line of text; None when the user cancels (Ctrl-C, Ctrl-D, ``/exit``, ``cancel``)."""
    session: PromptSession[str] = PromptSession(vi_mode=config.cli.vi_mode)
    try:
        text = await session.prompt_async(HTML("<gold>{}</gold>").format(prompt_text))
    except (KeyboardInterrupt, EOFError):
        return None
    text = text.strip()
    if text in CANCEL_WORDS:
        return None
    return text


def restart_cli() -> None:
    """Start this same command line again, in place of this process."""
    print_formatted_text(HTML("<gold>🔄 Restarting OpenHands CLI...</gold>"))
    os.execv(sys.executable, [sys.executable, *sys.argv])


async def prompt_for_restart(config: OpenHandsConfig) -> bool:
    """Ask ``(y/n)`` until answered; Ctrl-C means no."""
    session: PromptSession[str] = PromptSession(vi_mode=config.cli.vi_mode)
    while True:
        try:
            answer = await session.prompt_async(
                HTML("<gold>Would you like to restart OpenHands now? (y/n): </gold>")
            )
        except (KeyboardInterrupt, EOFError):
            return False
        answer = answer.strip().lower()
        if answer in ("y", "yes"):
            return True
        if answer in ("n", "no"):
            return False
        print_formatted_text('Please enter "y" for yes or "n" for no.')


# --- the dispatcher --------------------------------------------------------------------------


async def handle_commands(
    command: str,
    event_stream: EventStream,
    usage_metrics: UsageMetrics,
    sid: str,
    config: OpenHandsConfig,
    current_dir: str,
    settings_store: FileSettingsStore,
    agent_state: str,
) -> tuple[bool, bool, bool, ExitReason]:
    """Handle one input: ``(close_repl, reload_microagents, new_session_requested, reason)``.

    Commands match the exact input (no arguments, no trimming). Every input but a confirmed
    ``/exit`` or ``/new`` sets the exit reason to ``error`` (cli.md §6.3).
    """
    close_repl = reload_microagents = new_session = False
    exit_reason = ExitReason.ERROR
    if command == "/exit":
        close_repl = handle_exit_command(config, event_stream, usage_metrics, sid)
        if close_repl:
            exit_reason = ExitReason.INTENTIONAL
    elif command == "/help":
        handle_help_command()
    elif command == "/init":
        close_repl, reload_microagents = await handle_init_command(
            config, event_stream, current_dir
        )
    elif command == "/status":
        handle_status_command(usage_metrics, sid)
    elif command == "/new":
        close_repl, new_session = handle_new_command(config, event_stream, usage_metrics, sid)
        if close_repl:
            exit_reason = ExitReason.INTENTIONAL
    elif command == "/settings":
        await handle_settings_command(config, settings_store)
    elif command == "/resume":
        close_repl, new_session = await handle_resume_command(event_stream, agent_state)
    elif command == "/mcp":
        await handle_mcp_command(config)
    else:
        close_repl = True
        event_stream.add_event(MessageAction(content=command), EventSource.USER)
    return close_repl, reload_microagents, new_session, exit_reason


# --- one function per command ------------------------------------------------------------------


def _stop_agent(event_stream: EventStream) -> None:
    event_stream.add_event(
        ChangeAgentStateAction(agent_state=AgentState.STOPPED), EventSource.ENVIRONMENT
    )


def handle_exit_command(
    config: OpenHandsConfig, event_stream: EventStream, usage_metrics: UsageMetrics, sid: str
) -> bool:
    """``/exit``: after a yes, stop the agent and print the summary; True when confirmed."""
    choice = cli_confirm(config, "Terminate session?", ["Yes, proceed", "No, dismiss"])
    if choice != 0:
        return False
    _stop_agent(event_stream)
    display_shutdown_message(usage_metrics, sid)
    return True


def handle_help_command() -> None:
    display_help()


def handle_status_command(usage_metrics: UsageMetrics, sid: str) -> None:
    display_status(usage_metrics, sid)


def handle_new_command(
    config: OpenHandsConfig, event_stream: EventStream, usage_metrics: UsageMetrics, sid: str
) -> tuple[bool, bool]:
    """``/new``: ``(close_repl, new_session)``, both True once the user agrees."""
    question = (
        "Current session will be terminated and you will lose the conversation history.\nContinue?"
    )
    if cli_confirm(config, question, ["Yes, proceed", "No, dismiss"]) != 0:
        return False, False
    _stop_agent(event_stream)
    display_shutdown_message(usage_metrics, sid)
    return True, True


async def handle_settings_command(
    config: OpenHandsConfig, settings_store: FileSettingsStore
) -> None:
    display_settings(config)
    choice = cli_confirm(
        config,
        "Which settings would you like to modify?",
        ["LLM (Basic)", "LLM (Advanced)", "Search API (Optional)", "Go back"],
    )
    if choice == 0:
        await modify_llm_settings_basic(config, settings_store)
    elif choice == 1:
        await modify_llm_settings_advanced(config, settings_store)
    elif choice == 2:
        await modify_search_api_settings(config, settings_store)


async def handle_resume_command(event_stream: EventStream, agent_state: str) -> tuple[bool, bool]:
    """``/resume``: only when paused; sends ``continue`` as the user's message."""
    if agent_state != AgentState.PAUSED:
        print_formatted_text(
            HTML(
                "<ansired>Error: Agent is not paused. "
                "/resume command is only available when agent is paused.</ansired>"
            )
        )
        return False, False
    event_stream.add_event(MessageAction(content="continue"), EventSource.USER)
    return True, False


async def handle_init_command(
    config: OpenHandsConfig, event_stream: EventStream, current_dir: str
) -> tuple[bool, bool]:
    """``/init`` (CLI and local runtimes only): ask the agent to write ``repo.md``.

    Returns ``(close_repl, reload_microagents)``: both True when the agent was asked.
    """
    if config.runtime not in ("local", "cli"):
        print_formatted_text(
            "\nRepository initialization through the CLI is only supported for CLI and "
            "local runtimes.\n"
        )
        return False, False
    if not await init_repository(config, current_dir):
        return False, False
    event_stream.add_event(MessageAction(content=INIT_REPOSITORY_MESSAGE), EventSource.USER)
    return True, True


async def init_repository(config: OpenHandsConfig, current_dir: str) -> bool:
    """Decide whether the agent should (re)write ``repo.md``; True to go ahead."""
    repo_md = Path(current_dir) / REPO_MD_PATH
    if repo_md.exists():
        print_formatted_text("Repository instructions file (repo.md) already exists.\n")
        content = repo_md.read_text(encoding="utf-8", errors="replace")
        print_container(
            Frame(
                TextArea(text=content, read_only=True, wrap_lines=True),
                title="Repository Instructions (repo.md)",
            )
        )
        print_formatted_text("")
        choice = cli_confirm(
            config, "Do you want to re-initialize?", ["Yes, re-initialize", "No, dismiss"]
        )
        if choice != 0:
            return False
        repo_md.write_text("", encoding="utf-8")
        return True
    print_formatted_text(
        "\nRepository instructions file will be created by exploring the repository.\n"
    )
    return cli_confirm(config, "Do you want to proceed?", ["Yes, create", "No, dismiss"]) == 0


# --- trusted folders ---------------------------------------------------------------------------


def check_folder_security_agreement(config: OpenHandsConfig, current_dir: str) -> bool:
    """True when ``current_dir`` is trusted, or the user trusts it now (then it is saved).

    The list in ``~/.openhands/config.toml`` wins; only when it is empty does the loaded
    config's ``[sandbox] trusted_dirs`` apply. Paths are compared as given (exact match).
    """
    trusted = get_local_config_trusted_dirs() or list(config.sandbox.trusted_dirs)
    if current_dir in trusted:
        return True
    clear()
    print_container(
        Frame(
            TextArea(
                text=(
                    " Do you trust the files in this folder?\n\n"
                    f"   {current_dir}\n\n"
                    " OpenHands may read and execute files in this folder with your permission."
                ),
                read_only=True,
                wrap_lines=True,
            ),
            style=f"fg:{COLOR_GREY}",
        )
    )
    agreed = cli_confirm(config, "Do you wish to continue?", ["Yes, proceed", "No, exit"]) == 0
    if agreed:
        add_local_config_trusted_dir(current_dir)
    return agreed
