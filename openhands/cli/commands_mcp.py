"""The ``/mcp`` menus of the terminal app (cli.md §6.4): list, add and remove MCP servers,
and view the errors of those that failed to start.

Servers are written to ``./config.toml`` when that file exists, else to
``~/.openhands/config.toml``; they take effect after a restart. The names scripts and
tests replace (``cli_confirm``, ``print_formatted_text``, the config file functions...,
cli.md §15) are taken from ``openhands.cli.commands`` when a menu runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

import toml
from prompt_toolkit.formatted_text import HTML
from pydantic import BaseModel, ValidationError

from openhands.cli import utils as cli_utils
from openhands.core.config.mcp_config import (
    MCPSHTTPServerConfig,
    MCPSSEServerConfig,
    MCPStdioServerConfig,
)

if TYPE_CHECKING:
    from openhands.core.config import OpenHandsConfig

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
    from openhands.cli import commands as hooks  # the patch points, looked up now

    path = hooks.get_config_file_path()
    data = hooks.load_config_file(path)
    servers = _mcp_section(data).setdefault(kind, [])
    servers.append(entry)
    hooks.save_config_file(data, path)
    return path


# --- /mcp -----------------------------------------------------------------------------------


async def handle_mcp_command(config: OpenHandsConfig) -> None:
    from openhands.cli import commands as hooks  # the patch points, looked up now

    choice = hooks.cli_confirm(
        config,
        "MCP Server Configuration",
        ["List configured servers", "Add new server", "Remove server", "View errors", "Go back"],
    )
    if choice == 0:
        hooks.display_mcp_servers(config)
    elif choice == 1:
        await hooks.add_mcp_server(config)
    elif choice == 2:
        await hooks.remove_mcp_server(config)
    elif choice == 3:
        hooks.handle_mcp_errors_command()


def display_mcp_servers(config: OpenHandsConfig) -> None:
    """The configured servers: a summary with counts, then one numbered list per type."""
    from openhands.cli import commands as hooks  # the patch points, looked up now

    mcp = config.mcp
    total = len(mcp.sse_servers) + len(mcp.stdio_servers) + len(mcp.shttp_servers)
    if total == 0:
        hooks.print_formatted_text(
            "\nNo custom MCP servers configured. See the documentation to learn more:\n"
            f"  {MCP_DOCS_URL}\n"
        )
        return
    hooks.print_formatted_text(
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
        hooks.print_formatted_text(heading)
        for number, item in enumerate(items, 1):
            hooks.print_formatted_text(f"  {number}. {item}")
        hooks.print_formatted_text("")


def handle_mcp_errors_command() -> None:
    """``/mcp`` → View errors: the servers that failed to start, one frame each."""
    from openhands.cli import commands as hooks  # the patch points, looked up now

    hooks.display_mcp_errors()


# --- adding ------------------------------------------------------------------------------------


async def add_mcp_server(config: OpenHandsConfig) -> None:
    from openhands.cli import commands as hooks  # the patch points, looked up now

    choice = hooks.cli_confirm(
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
        hooks.add_sse_server,
        hooks.add_stdio_server,
        hooks.add_shttp_server,
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
    from openhands.cli import commands as hooks  # the patch points, looked up now

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
    hooks.print_formatted_text(
        HTML("<ansigreen>✓ {} MCP server added to {}: {}</ansigreen>").format(
            _LABELS[kind], str(path), str(entry["url"])
        )
    )
    await _after_change(config)


async def add_stdio_server(config: OpenHandsConfig) -> None:
    from openhands.cli import commands as hooks  # the patch points, looked up now

    taken = {server.name for server in config.mcp.stdio_servers}

    async def ask() -> dict[str, object]:
        while True:
            name = await _ask(config, "Enter server name:")
            if name not in taken:
                break
            hooks.print_formatted_text(
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
    hooks.print_formatted_text(
        HTML("<ansigreen>✓ Stdio MCP server added to {}: {}</ansigreen>").format(
            str(path), str(entry["name"])
        )
    )
    await _after_change(config)


async def _ask(config: OpenHandsConfig, prompt_text: str) -> str:
    from openhands.cli import commands as hooks  # the patch points, looked up now

    answer = await hooks.collect_input(config, prompt_text)
    if answer is None:
        raise _Cancelled
    return answer


async def _ask_until_valid(
    config: OpenHandsConfig,
    ask: Callable[[], Awaitable[dict[str, object]]],
    model: type[BaseModel],
) -> dict[str, object] | None:
    """Ask until the answers make a valid server (stored as validated), or None if given up."""
    from openhands.cli import commands as hooks  # the patch points, looked up now

    while True:
        try:
            raw = await ask()
        except _Cancelled:
            hooks.print_formatted_text("Operation cancelled.")
            return None
        try:
            server = model.model_validate(raw)
        except ValidationError as error:
            hooks.print_formatted_text(
                HTML("<ansired>❌ Please fix the following errors:</ansired>")
            )
            for problem in error.errors():
                field = ".".join(str(part) for part in problem["loc"]) or "server"
                hooks.print_formatted_text(f"  • {field}: {problem['msg']}")
            if hooks.cli_confirm(config, "Try again?", ["Yes", "No"]) != 0:
                return None
            continue
        return server.model_dump(exclude_none=True, exclude_defaults=True)


# --- removing ------------------------------------------------------------------------------------


async def remove_mcp_server(config: OpenHandsConfig) -> None:
    from openhands.cli import commands as hooks  # the patch points, looked up now

    mcp = config.mcp
    entries: list[tuple[str, str]] = [(SSE, s.url) for s in mcp.sse_servers]
    entries += [(STDIO, s.name) for s in mcp.stdio_servers]
    entries += [(SHTTP, s.url) for s in mcp.shttp_servers]
    if not entries:
        hooks.print_formatted_text("No MCP servers configured to remove.")
        return
    choices = [f"{_LABELS[kind]}: {ident}" for kind, ident in entries] + ["Cancel"]
    choice = hooks.cli_confirm(config, "Select MCP server to remove:", choices)
    if choice >= len(entries):
        return
    kind, ident = entries[choice]
    label = _LABELS[kind]
    question = f'Are you sure you want to remove {label} server "{ident}"?'
    if hooks.cli_confirm(config, question, ["Yes, remove", "Cancel"]) != 0:
        return
    path = hooks.get_config_file_path()
    data = hooks.load_config_file(path)
    servers = _mcp_section(data).get(kind, [])
    key = "name" if kind == STDIO else "url"
    kept = [s for s in servers if not (isinstance(s, dict) and s.get(key) == ident)]
    if len(kept) == len(servers):
        hooks.print_formatted_text(
            HTML('<ansired>❌ {} server "{}" is not in {}.</ansired>').format(
                label, ident, str(path)
            )
        )
        return
    _mcp_section(data)[kind] = kept
    hooks.save_config_file(data, path)
    hooks.print_formatted_text(
        HTML('<ansigreen>✓ {} MCP server "{}" removed from {}.</ansigreen>').format(
            label, ident, str(path)
        )
    )
    await _after_change(config)


async def _after_change(config: OpenHandsConfig) -> None:
    from openhands.cli import commands as hooks  # the patch points, looked up now

    hooks.print_formatted_text(
        HTML(
            "\n<ansigreen>📝 MCP server configuration updated successfully!</ansigreen>\n"
            "The changes will take effect after restarting OpenHands."
        )
    )
    if await hooks.prompt_for_restart(config):
        hooks.restart_cli()
