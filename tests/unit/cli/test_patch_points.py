"""The names scripts and tests replace in the CLI modules (cli.md §15) take effect there.

Each test swaps one module-level name with ``monkeypatch`` and checks that the code of that
module then uses the replacement: the session code calls the factories of
``openhands.cli.main``, the ``/mcp`` menus print and ask through ``openhands.cli.commands``.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

import pytest

from openhands.cli import commands, main, tui, tui_events
from openhands.core.config import OpenHandsConfig
from openhands.core.config.mcp_config import MCPConfig, MCPSSEServerConfig, MCPStdioServerConfig
from openhands.events.action import Action, CmdRunAction

if TYPE_CHECKING:
    from openhands.controller.agent import Agent
    from openhands.controller.agent_controller import AgentController
    from openhands.runtime.base import Runtime

Printed = list[object]


def _recorder(into: Printed) -> object:
    def record(*args: object, **kwargs: object) -> None:
        into.append(args[0] if args else "")

    return record


def test_main_exposes_the_session_patch_points() -> None:
    for name in (
        "create_agent",
        "create_runtime",
        "create_controller",
        "create_memory",
        "generate_sid",
        "initialize_repository_for_runtime",
        "run_agent_until_done",
        "cleanup_session",
        "read_prompt_input",
        "handle_commands",
        "display_event",
        "display_banner",
        "display_agent_running_message",
        "display_initialization_animation",
        "display_runtime_initialization_message",
        "update_usage_metrics",
        "setup_config_from_args",
        "finalize_config",
        "check_folder_security_agreement",
        "aliases_exist_in_shell_config",
    ):
        assert callable(getattr(main, name)), name
    # Loaded on first use, not at start-up, yet reachable (and replaceable) as an attribute.
    assert callable(main.add_mcp_tools_to_agent)


async def test_cleanup_cancels_what_is_still_running_and_logs_close_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    errors: list[str] = []
    monkeypatch.setattr(main.logger, "error", lambda message, *a: errors.append(message))
    closed: list[str] = []

    class FakeAgent:
        def reset(self) -> None:
            closed.append("agent")

    class FakeRuntime:
        def close(self) -> None:
            closed.append("runtime")

    class FakeController:
        security_analyzer = None

        def save_state(self) -> None:
            closed.append("state")

        async def close(self) -> None:
            raise RuntimeError("controller would not close")

    never_done = asyncio.Event()
    straggler = asyncio.create_task(never_done.wait())
    # Lets the wait for leftovers end at once instead of after its 2 s allowance.
    monkeypatch.setattr(
        main.asyncio,
        "wait",
        _wait_without_timeout,
    )
    await main.cleanup_session(
        asyncio.get_running_loop(),
        cast("Agent", FakeAgent()),
        cast("Runtime", FakeRuntime()),
        cast("AgentController", FakeController()),
    )
    with pytest.raises(asyncio.CancelledError):
        await straggler
    assert closed == ["state", "agent", "runtime"]
    assert len(errors) == 1 and "controller would not close" in errors[0]


async def _wait_without_timeout(
    tasks: list[asyncio.Task[object]], timeout: float | None = None
) -> tuple[set[asyncio.Task[object]], set[asyncio.Task[object]]]:
    return set(), set(tasks)


def test_applied_settings_are_stored_back_in_the_config() -> None:
    config = OpenHandsConfig()
    config.get_llm_config().api_key = None
    stored: list[str] = []
    original_set_llm = config.set_llm_config
    original_set_agent = config.set_agent_config

    def set_llm(value: object, name: str = "llm") -> None:
        stored.append(f"llm:{name}")
        original_set_llm(value, name)  # type: ignore[arg-type]

    def set_agent(value: object, name: str = "agent") -> None:
        stored.append(f"agent:{name}")
        original_set_agent(value, name)  # type: ignore[arg-type]

    object.__setattr__(config, "set_llm_config", set_llm)
    object.__setattr__(config, "set_agent_config", set_agent)
    from openhands.storage.data_models.settings import Settings

    settings = Settings.model_validate(
        {"llm_model": "openai/m", "llm_api_key": "sk-x", "llm_base_url": "http://llm"},
    )
    main._apply_settings(config, settings, False)
    assert stored == ["llm:llm", "agent:agent"]
    assert config.get_llm_config().base_url == "http://llm"


def test_the_file_flag_message_asks_to_read_then_ask(tmp_path: object) -> None:
    from pathlib import Path

    task_file = Path(str(tmp_path)) / "notes.txt"
    task_file.write_text("hello there", encoding="utf-8")
    message = main._file_task(str(task_file))
    assert "Please read and understand the following file content first:" in message
    assert "hello there" in message
    assert message.endswith(
        "After reviewing the file, please ask the user what they would like to do with it."
    )


def _mcp_config() -> OpenHandsConfig:
    config = OpenHandsConfig()
    config.mcp = MCPConfig(
        sse_servers=[MCPSSEServerConfig(url="https://example.com/sse")],
        stdio_servers=[MCPStdioServerConfig(name="tavily", command="npx")],
    )
    return config


def test_mcp_list_prints_through_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    printed: Printed = []
    monkeypatch.setattr(commands, "print_formatted_text", _recorder(printed))
    commands.display_mcp_servers(_mcp_config())
    summary = printed[0]
    assert isinstance(summary, str)
    assert "Configured MCP servers:" in summary and "Total: 2" in summary
    assert "SSE Servers:" in printed and "  1. tavily (npx)" in printed


def test_mcp_list_without_servers_links_the_docs(monkeypatch: pytest.MonkeyPatch) -> None:
    printed: Printed = []
    monkeypatch.setattr(commands, "print_formatted_text", _recorder(printed))
    commands.display_mcp_servers(OpenHandsConfig())
    assert len(printed) == 1
    assert "No custom MCP servers configured" in str(printed[0])
    assert commands.MCP_DOCS_URL in str(printed[0])


async def test_mcp_remove_asks_through_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = iter([0, 1])  # the first server, then "Cancel" at "Are you sure...?"
    questions: list[str] = []

    def confirm(config: object, question: str, choices: list[str]) -> int:
        questions.append(question)
        return next(answers)

    monkeypatch.setattr(commands, "cli_confirm", confirm)
    await commands.remove_mcp_server(_mcp_config())
    assert questions[-1] == 'Are you sure you want to remove SSE server "https://example.com/sse"?'


def test_mcp_errors_are_shown_by_the_tui(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(commands, "display_mcp_errors", lambda: calls.append("shown"))
    commands.handle_mcp_errors_command()
    assert calls == ["shown"]


def test_init_asks_to_explore_the_repository() -> None:
    assert commands.INIT_REPOSITORY_MESSAGE.startswith("Please explore this repository")


def test_a_command_without_thought_shows_no_thought(monkeypatch: pytest.MonkeyPatch) -> None:
    thoughts: list[str] = []
    monkeypatch.setattr(tui, "display_thought_if_new", lambda text, **kw: thoughts.append(text))
    monkeypatch.setattr(tui, "display_command", lambda event: None)
    tui.display_event(CmdRunAction(command="ls"), OpenHandsConfig())
    assert thoughts == []


def test_an_action_final_thought_is_an_agent_message(monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[tuple[str, bool]] = []
    monkeypatch.setattr(
        tui,
        "display_message",
        lambda text, is_agent_message=False: shown.append((text, is_agent_message)),
    )
    action = Action()
    object.__setattr__(action, "final_thought", "All done.")
    tui.display_event(action, OpenHandsConfig())
    assert shown == [("All done.", True)]


def test_basic_markdown_renders_bold_and_underline_and_escapes_the_rest() -> None:
    assert (
        tui_events.render_basic_markdown("**a** & __b__ <c>") == "<b>a</b> &amp; <u>b</u> &lt;c&gt;"
    )


async def test_the_pause_notice_is_markup(monkeypatch: pytest.MonkeyPatch) -> None:
    from prompt_toolkit.formatted_text import HTML
    from prompt_toolkit.keys import Keys

    printed: Printed = []
    monkeypatch.setattr(tui, "print_formatted_text", _recorder(printed))

    class Terminal:
        callback: object = None

        def read_keys(self) -> list[object]:
            return [SimpleNamespace(key=Keys.ControlP)]

        def raw_mode(self) -> _Nothing:
            return _Nothing()

        def attach(self, callback: object) -> _Nothing:
            Terminal.callback = callback
            return _Nothing()

        def close(self) -> None:
            pass

    monkeypatch.setattr(tui, "create_input", Terminal)
    done = asyncio.Event()
    added: list[object] = []
    stream = SimpleNamespace(add_event=lambda event, source: added.append(event))

    async def press_when_attached() -> None:
        while Terminal.callback is None:
            await asyncio.sleep(0)
        cast(object, Terminal.callback)()  # type: ignore[operator]

    await asyncio.gather(tui.process_agent_pause(done, stream), press_when_attached())  # type: ignore[arg-type]
    assert printed[0] == ""
    assert isinstance(printed[1], HTML) and "Pausing the agent..." in str(printed[1])
    assert len(added) == 1


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


async def test_the_trusted_folder_asked_about_is_the_workspace(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    import argparse

    from openhands.storage.data_models.settings import Settings

    workspace = str(tmp_path)
    config = OpenHandsConfig(file_store="memory", workspace_base=workspace)

    class Store:
        async def load(self) -> Settings:
            return Settings.model_validate({"agent": "CodeActAgent"})

    async def get_instance(*args: object) -> Store:
        return Store()

    asked: list[str] = []

    def refuse(config: OpenHandsConfig, folder: str) -> bool:
        asked.append(folder)
        return False

    monkeypatch.setattr(main, "setup_config_from_args", lambda args: config)
    monkeypatch.setattr(main.FileSettingsStore, "get_instance", get_instance)
    monkeypatch.setattr(main, "attempt_vscode_extension_install", lambda: None)
    monkeypatch.setattr(main, "aliases_exist_in_shell_config", lambda: True)
    monkeypatch.setattr(main, "check_folder_security_agreement", refuse)
    args = argparse.Namespace(
        log_level=None, config_file="config.toml", llm_config=None, override_cli_mode=None
    )
    await main.main_with_loop(asyncio.get_running_loop(), args)
    assert asked == [workspace]
