"""``/mcp``: list, add and remove MCP servers in the config file, and show start-up errors
(cli.md §6.4). ``openhands.cli.commands`` re-exports these names (their spec home).

Servers are written to ``./config.toml`` when that file exists, else to
``~/.openhands/config.toml``; they take effect after a restart.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

import toml
from prompt_toolkit import print_formatted_text
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.shortcuts import print_container
from prompt_toolkit.widgets import Frame, TextArea
from pydantic import BaseModel, ValidationError

from openhands.cli import utils as cli_utils
from openhands.cli.tui import cli_confirm
from openhands.core.config.mcp_config import (
    MCPSHTTPServerConfig,
    MCPSSEServerConfig,
    MCPStdioServerConfig,
)

if TYPE_CHECKING:
    from openhands.core.config import OpenHandsConfig

TomlData = dict[str, object]

MCP_DOCS_URL = "https://docs.all-hands.dev/usage/mcp"
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
    mcp = config.mcp
    total = len(mcp.sse_servers) + len(mcp.stdio_servers) + len(mcp.shttp_servers)
    if total == 0:
        print_formatted_text(
            "\nNo custom MCP servers configured. See the documentation to learn more:\n"
            f"  {MCP_DOCS_URL}\n"
        )
        return
    lines = [
        "Configured MCP servers:",
        "",
        f"  • SSE servers: {len(mcp.sse_servers)}",
        f"  • Stdio servers: {len(mcp.stdio_servers)}",
        f"  • SHTTP servers: {len(mcp.shttp_servers)}",
        f"  • Total: {total}",
    ]
    if mcp.sse_servers:
        lines += ["", "SSE Servers:"]
        lines += [f"  {i}. {s.url}" for i, s in enumerate(mcp.sse_servers, 1)]
    if mcp.stdio_servers:
        lines += ["", "Stdio Servers:"]
        lines += [f"  {i}. {s.name} ({s.command})" for i, s in enumerate(mcp.stdio_servers, 1)]
    if mcp.shttp_servers:
        lines += ["", "SHTTP Servers:"]
        lines += [f"  {i}. {s.url}" for i, s in enumerate(mcp.shttp_servers, 1)]
    print_formatted_text("\n".join(lines) + "\n")


def handle_mcp_errors_command() -> None:
    # Deferred: importing it loads the MCP client package, too slow for the first prompt.
    from openhands.mcp.error_collector import mcp_error_collector

    errors = mcp_error_collector.get_errors()
    if not errors:
        print_formatted_text(HTML("<ansigreen>✓ No MCP errors detected</ansigreen>\n"))
        return
    print_formatted_text(
        HTML(f"<ansired>✗ {len(errors)} MCP error(s) detected during startup:</ansired>\n")
    )
    for index, error in enumerate(errors, 1):
        stamp = time.strftime("%H:%M:%S", time.localtime(error.timestamp))
        body = [
            f"[{stamp}] {error.server_type.upper()} Server: {error.server_name}",
            f"Error: {error.error_message}",
        ]
        if error.exception_details:
            body.append(f"Details: {error.exception_details}")
        print_container(
            Frame(
                TextArea(text="\n".join(body), read_only=True, wrap_lines=True),
                title=f"MCP Error #{index}",
            )
        )


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
    # Imported here: commands imports this module, and the prompt helper lives there.
    from openhands.cli.commands import collect_input

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
    # Imported here for the same reason as in ``_ask``.
    from openhands.cli.commands import prompt_for_restart, restart_cli

    if await prompt_for_restart(config):
        restart_cli()
