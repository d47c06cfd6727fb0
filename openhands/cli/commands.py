"""The slash commands of the terminal app (cli.md §6.2) and the trusted-folder question (§2.1).

``handle_commands`` is the one entry the loop calls with what the user typed: a slash command
is handled here, anything else becomes the user's next message to the agent. The ``/mcp``
menus (cli.md §6.4) are at the end of this module: servers are written to ``./config.toml``
when that file exists, else to ``~/.openhands/config.toml``; they take effect after a restart.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

import toml
from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.shortcuts import clear, print_container
from prompt_toolkit.widgets import Frame, TextArea
from pydantic import BaseModel, ValidationError

from openhands.cli import utils as cli_utils
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
from openhands.core.config.mcp_config import (
    MCPSHTTPServerConfig,
    MCPSSEServerConfig,
    MCPStdioServerConfig,
)
from openhands.core.schema import AgentState
from openhands.core.schema.exit_reason import ExitReason
from openhands.events.action import ChangeAgentStateAction, MessageAction
from openhands.events.event import EventSource

if TYPE_CHECKING:
    from openhands.core.config import OpenHandsConfig
    from openhands.events.stream import EventStream
    from openhands.storage.settings.file_settings_store import FileSettingsStore

__all__ = [
    "add_mcp_server",
    "add_shttp_server",
    "add_sse_server",
    "add_stdio_server",
    "check_folder_security_agreement",
    "collect_input",
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


# --- /mcp (cli.md §6.4) --------------------------------------------------------------------------

TomlData = dict[str, object]

MCP_DOCS_URL = "https://docs.all-hands.dev/usage/how-to/cli-mode#using-mcp-servers"
SSE, STDIO, SHTTP = "sse_servers", "stdio_servers", "shttp_servers"
_LABELS = {SSE: "SSE", STDIO: "Stdio", SHTTP: "SHTTP"}


class _Cancelled(Exception):
    """The user typed a cancel word at one of the add prompts."""


# --- the config file -------------------------------------------------------------------------


def get_config_file_path() -> Path:
    """``./config.toml`` when it exists (the user's project config), else the user config."""
    local = Path.cwd() / "config.toml"
    return local if local.exists() else Path(cli_utils._LOCAL_CONFIG_FILE_PATH)


def load_config_file(path: Path) -> TomlData:
    """The TOML file as a dict; ``{}`` when missing or unreadable. Creates the directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        return {}
    try:
        data = toml.load(path)
    except (OSError, toml.TomlDecodeError):
        return {}
    return dict(data)


def save_config_file(data: TomlData, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        toml.dump(data, handle)


def _mcp_section(data: TomlData) -> dict[str, list[dict[str, object]]]:
    section = data.get("mcp")
    if not isinstance(section, dict):
        section = {}
        data["mcp"] = section
    return section


def _append_server(kind: str, entry: dict[str, object]) -> Path:
    path = get_config_file_path()
    data = load_config_file(path)
    servers = _mcp_section(data).setdefault(kind, [])
    servers.append(entry)
    save_config_file(data, path)
    return path


# --- /mcp -----------------------------------------------------------------------------------


async def handle_mcp_command(config: OpenHandsConfig) -> None:
    choice = cli_confirm(
        config,
        "MCP Server Configuration",
        ["List configured servers", "Add new server", "Remove server", "View errors", "Go back"],
    )
    if choice == 0:
        display_mcp_servers(config)
    elif choice == 1:
        await add_mcp_server(config)
    elif choice == 2:
        await remove_mcp_server(config)
    elif choice == 3:
        handle_mcp_errors_command()


def display_mcp_servers(config: OpenHandsConfig) -> None:
    """The configured servers: a summary with counts, then one numbered list per type."""
    mcp = config.mcp
    total = len(mcp.sse_servers) + len(mcp.stdio_servers) + len(mcp.shttp_servers)
    if total == 0:
        print_formatted_text(
            "\nNo custom MCP servers configured. See the documentation to learn more:\n"
            f"  {MCP_DOCS_URL}\n"
        )
        return
    print_formatted_text(
        "Configured MCP servers:\n\n"
        f"  • SSE servers: {len(mcp.sse_servers)}\n"
        f"  • Stdio servers: {len(mcp.stdio_servers)}\n"
        f"  • SHTTP servers: {len(mcp.shttp_servers)}\n"
        f"  • Total: {total}\n"
    )
    sections = (
        ("SSE Servers:", [s.url for s in mcp.sse_servers]),
        ("Stdio Servers:", [f"{s.name} ({s.command})" for s in mcp.stdio_servers]),
        ("SHTTP Servers:", [s.url for s in mcp.shttp_servers]),
    )
    for heading, items in sections:
        if not items:
            continue
        print_formatted_text(heading)
        for number, item in enumerate(items, 1):
            print_formatted_text(f"  {number}. {item}")
        print_formatted_text("")


def handle_mcp_errors_command() -> None:
    """``/mcp`` → View errors: the servers that failed to start, one frame each."""
    display_mcp_errors()


# --- adding ------------------------------------------------------------------------------------


async def add_mcp_server(config: OpenHandsConfig) -> None:
    choice = cli_confirm(
        config,
        "Select MCP server transport type:",
        [
            "SSE (Server-Sent Events)",
            "Stdio (Standard Input/Output)",
            "SHTTP (Streamable HTTP)",
            "Cancel",
        ],
    )
    adders: list[Callable[[OpenHandsConfig], Awaitable[None]]] = [
        add_sse_server,
        add_stdio_server,
        add_shttp_server,
    ]
    if choice < len(adders):
        await adders[choice](config)


async def add_sse_server(config: OpenHandsConfig) -> None:
    await _add_url_server(config, SSE, MCPSSEServerConfig)


async def add_shttp_server(config: OpenHandsConfig) -> None:
    await _add_url_server(config, SHTTP, MCPSHTTPServerConfig)


async def _add_url_server(
    config: OpenHandsConfig,
    kind: str,
    model: type[MCPSSEServerConfig] | type[MCPSHTTPServerConfig],
) -> None:
    async def ask() -> dict[str, object]:
        url = await _ask(config, "Enter server URL:")
        api_key = await _ask(config, "Enter API key (optional, press Enter to skip):")
        entry: dict[str, object] = {"url": url}
        if api_key:
            entry["api_key"] = api_key
        return entry

    entry = await _ask_until_valid(config, ask, model)
    if entry is None:
        return
    path = _append_server(kind, entry)
    print_formatted_text(
        HTML("<ansigreen>✓ {} MCP server added to {}: {}</ansigreen>").format(
            _LABELS[kind], str(path), str(entry["url"])
        )
    )
    await _after_change(config)


async def add_stdio_server(config: OpenHandsConfig) -> None:
    taken = {server.name for server in config.mcp.stdio_servers}

    async def ask() -> dict[str, object]:
        while True:
            name = await _ask(config, "Enter server name:")
            if name not in taken:
                break
            print_formatted_text(
                HTML("<ansired>❌ Server name '{}' already exists.</ansired>").format(name)
            )
        command = await _ask(config, "Enter command (e.g., 'uvx', 'npx'):")
        args = await _ask(
            config, "Enter arguments (optional, e.g., '-y server-package arg1'; Enter to skip):"
        )
        env = await _ask(
            config,
            "Enter environment variables (KEY=VALUE format, comma-separated, optional):",
        )
        entry: dict[str, object] = {"name": name, "command": command}
        if args:
            entry["args"] = args
        if env:
            entry["env"] = env
        return entry

    entry = await _ask_until_valid(config, ask, MCPStdioServerConfig)
    if entry is None:
        return
    path = _append_server(STDIO, entry)
    print_formatted_text(
        HTML("<ansigreen>✓ Stdio MCP server added to {}: {}</ansigreen>").format(
            str(path), str(entry["name"])
        )
    )
    await _after_change(config)


async def _ask(config: OpenHandsConfig, prompt_text: str) -> str:
    answer = await collect_input(config, prompt_text)
    if answer is None:
        raise _Cancelled
    return answer


async def _ask_until_valid(
    config: OpenHandsConfig,
    ask: Callable[[], Awaitable[dict[str, object]]],
    model: type[BaseModel],
) -> dict[str, object] | None:
    """Ask until the answers make a valid server (stored as validated), or None if given up."""
    while True:
        try:
            raw = await ask()
        except _Cancelled:
            print_formatted_text("Operation cancelled.")
            return None
        try:
            server = model.model_validate(raw)
        except ValidationError as error:
            print_formatted_text(HTML("<ansired>❌ Please fix the following errors:</ansired>"))
            for problem in error.errors():
                field = ".".join(str(part) for part in problem["loc"]) or "server"
                print_formatted_text(f"  • {field}: {problem['msg']}")
            if cli_confirm(config, "Try again?", ["Yes", "No"]) != 0:
                return None
            continue
        return server.model_dump(exclude_none=True, exclude_defaults=True)


# --- removing ------------------------------------------------------------------------------------


async def remove_mcp_server(config: OpenHandsConfig) -> None:
    mcp = config.mcp
    entries: list[tuple[str, str]] = [(SSE, s.url) for s in mcp.sse_servers]
    entries += [(STDIO, s.name) for s in mcp.stdio_servers]
    entries += [(SHTTP, s.url) for s in mcp.shttp_servers]
    if not entries:
        print_formatted_text("No MCP servers configured to remove.")
        return
    choices = [f"{_LABELS[kind]}: {ident}" for kind, ident in entries] + ["Cancel"]
    choice = cli_confirm(config, "Select MCP server to remove:", choices)
    if choice >= len(entries):
        return
    kind, ident = entries[choice]
    label = _LABELS[kind]
    question = f'Are you sure you want to remove {label} server "{ident}"?'
    if cli_confirm(config, question, ["Yes, remove", "Cancel"]) != 0:
        return
    path = get_config_file_path()
    data = load_config_file(path)
    servers = _mcp_section(data).get(kind, [])
    key = "name" if kind == STDIO else "url"
    kept = [s for s in servers if not (isinstance(s, dict) and s.get(key) == ident)]
    if len(kept) == len(servers):
        print_formatted_text(
            HTML('<ansired>❌ {} server "{}" is not in {}.</ansired>').format(
                label, ident, str(path)
            )
        )
        return
    _mcp_section(data)[kind] = kept
    save_config_file(data, path)
    print_formatted_text(
        HTML('<ansigreen>✓ {} MCP server "{}" removed from {}.</ansigreen>').format(
            label, ident, str(path)
        )
    )
    await _after_change(config)


async def _after_change(config: OpenHandsConfig) -> None:
    print_formatted_text(
        HTML(
            "\n<ansigreen>📝 MCP server configuration updated successfully!</ansigreen>\n"
            "The changes will take effect after restarting OpenHands."
        )
    )
    if await prompt_for_restart(config):
        restart_cli()
