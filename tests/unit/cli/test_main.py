"""Start-up rules of the terminal app (cli.md §1.2, §2, §10): command insertion, what stored
settings and CLI mode change in the config, and what a resumed conversation starts with."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from pydantic import SecretStr

from openhands.cli import main, session_messages
from openhands.cli.entry import _with_command
from openhands.controller.state.state import State
from openhands.core.config import OpenHandsConfig, get_cli_parser
from openhands.core.config.condenser_config import (
    LLMSummarizingCondenserConfig,
    NoOpCondenserConfig,
)
from openhands.storage.data_models.settings import Settings


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], ["cli"]),
        (["-t", "fix it"], ["cli", "-t", "fix it"]),
        (["serve", "--gpu"], ["serve", "--gpu"]),
        (["cli", "-n", "x"], ["cli", "-n", "x"]),
        (["--conversation", "abc"], ["cli", "--conversation", "abc"]),
        (["--conversation", "abc", "cli"], ["--conversation", "abc", "cli"]),
    ],
)
def test_cli_is_the_default_command(argv: list[str], expected: list[str]) -> None:
    assert _with_command(argv) == expected


@pytest.mark.parametrize(
    "argv",
    [
        ["cli", "--conversation", "abc"],
        ["--conversation", "abc", "cli"],
        _with_command(["--conversation", "abc"]),
    ],
)
def test_conversation_is_accepted_before_and_after_cli(argv: list[str]) -> None:
    args = get_cli_parser().parse_args(argv)
    assert args.command == "cli" and args.conversation == "abc"


def _settings(**values: object) -> Settings:
    base: dict[str, object] = {
        "llm_model": "openai/test-model",
        "llm_api_key": SecretStr("sk-stored"),
        "agent": "CodeActAgent",
        "confirmation_mode": False,
        "enable_default_condenser": True,
    }
    return Settings.model_validate(base | values)


def test_stored_settings_fill_a_config_without_a_key() -> None:
    config = OpenHandsConfig()
    config.get_llm_config().base_url = "http://127.0.0.1:9/v1"
    main._apply_settings(config, _settings(search_api_key=SecretStr("tvly-x")), False)
    llm = config.get_llm_config()
    assert llm.model == "openai/test-model"
    assert llm.api_key is not None and llm.api_key.get_secret_value() == "sk-stored"
    # Settings without a base URL keep the one from the config or environment.
    assert llm.base_url == "http://127.0.0.1:9/v1"
    assert config.search_api_key is not None
    condenser = config.get_agent_config(config.default_agent).condenser
    assert isinstance(condenser, LLMSummarizingCondenserConfig)
    assert config.enable_default_condenser is True


def test_a_config_with_model_and_key_wins_over_settings() -> None:
    config = OpenHandsConfig()
    config.get_llm_config().model = "anthropic/claude"
    config.get_llm_config().api_key = SecretStr("sk-config")
    main._apply_settings(config, _settings(enable_default_condenser=False), False)
    assert config.get_llm_config().model == "anthropic/claude"
    condenser = config.get_agent_config(config.default_agent).condenser
    assert isinstance(condenser, NoOpCondenserConfig)


def test_the_llm_config_flag_wins_over_settings() -> None:
    config = OpenHandsConfig()
    config.get_llm_config().model = "from-flag"
    main._apply_settings(config, _settings(), True)
    assert config.get_llm_config().model == "from-flag"


def test_cli_mode_works_here_and_asks_first(tmp_path: Path) -> None:
    config = OpenHandsConfig(file_store="memory")
    config.security.confirmation_mode = False
    main._apply_cli_mode(config, str(tmp_path))
    assert config.runtime == "cli"
    assert config.workspace_base == str(tmp_path)
    assert config.security.confirmation_mode is True
    assert config.security.security_analyzer == "llm"
    agent_config = config.get_agent_config(config.default_agent)
    assert agent_config.cli_mode is True
    assert agent_config.enable_jupyter is False and agent_config.enable_browsing is False


@pytest.mark.parametrize(
    ("value", "expected"),
    [(False, False), (True, True), ("false", False), ("0", False), ("true", True), ("1", True)],
)
def test_override_cli_mode_values(value: object, expected: bool) -> None:
    assert main._override_cli_mode(argparse.Namespace(override_cli_mode=value)) is expected


def test_a_new_conversation_sends_the_task() -> None:
    welcome, first = session_messages.welcome_and_first_message(OpenHandsConfig(), None, "build it")
    assert welcome.endswith("What do you want to build?")
    assert first == "build it"
    assert session_messages.welcome_and_first_message(OpenHandsConfig(), None, None)[1] is None


def test_a_resumed_conversation_sends_nothing_and_says_so() -> None:
    welcome, first = session_messages.welcome_and_first_message(
        OpenHandsConfig(), State(session_id="s"), "ignored task"
    )
    assert welcome.endswith("What do you want to build?\nLoading previous conversation.")
    assert first is None


def test_a_conversation_that_failed_authentication_says_check_the_key() -> None:
    state = State(session_id="s", last_error="STATUS$ERROR_LLM_AUTHENTICATION")
    welcome, first = session_messages.welcome_and_first_message(OpenHandsConfig(), state, None)
    assert welcome == main.AUTH_ERROR_TEXT and first is None


def test_a_conversation_that_failed_otherwise_asks_the_agent_to_check_in() -> None:
    state = State(session_id="s", last_error="RuntimeError: boom")
    _, first = session_messages.welcome_and_first_message(OpenHandsConfig(), state, None)
    assert first == main.RESUME_AFTER_ERROR_MESSAGE


def test_the_file_flag_wraps_the_file(tmp_path: Path) -> None:
    task_file = tmp_path / "task.md"
    task_file.write_text("add a README")
    message = main._file_task(str(task_file))
    assert f"The user has tagged a file '{task_file}'." in message
    assert "add a README" in message


def test_read_task_prefers_the_flag() -> None:
    assert main.read_task(argparse.Namespace(task="do it"), False) == "do it"


@pytest.mark.parametrize(
    ("last_error", "expected"),
    [
        ("STATUS$ERROR_LLM_AUTHENTICATION", "Please check your API key."),
        ("STATUS$ERROR_LLM_SERVICE_UNAVAILABLE", "No answer from the LLM (http://llm:1/v1)"),
        ("STATUS$ERROR_LLM_INTERNAL_SERVER_ERROR", "No answer from the LLM (http://llm:1/v1)"),
        ("RuntimeError: boom", "The agent stopped with an error: RuntimeError: boom"),
    ],
)
def test_an_error_end_says_what_to_do(last_error: str, expected: str) -> None:
    config = OpenHandsConfig()
    config.get_llm_config().base_url = "http://llm:1/v1"
    hint = main.error_hint(config, last_error)
    assert expected in hint and "\n" not in hint


def test_background_imports_load_what_the_first_session_needs() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import openhands.cli.main as m\n"
        "assert 'litellm' not in sys.modules\n"
        "thread = m.start_background_imports()\n"
        "thread.join(300)\n"
        "print(thread.name, thread.daemon, *(name in sys.modules for name in "
        "('litellm', 'openhands.llm.llm', 'openhands.mcp.utils')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=320
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["openhands-cli-preload", "True", "True", "True", "True"]
