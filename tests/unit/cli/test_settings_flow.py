"""The settings flows (cli.md §4) against a real ``FileSettingsStore`` in a temporary folder.

Menus and prompts are real prompt_toolkit applications reading keys from a pipe, so these
tests press the same keys a user would. Only the model list is fixed (the real one comes from
LiteLLM, which is slow to import and changes between versions).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit import PromptSession
from prompt_toolkit.application.current import create_app_session
from prompt_toolkit.formatted_text import AnyFormattedText, to_plain_text
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.widgets import Frame, TextArea
from pydantic import SecretStr

from openhands.cli import settings as cli_settings
from openhands.core.config import (
    CondenserPipelineConfig,
    ConversationWindowCondenserConfig,
    LLMSummarizingCondenserConfig,
    OpenHandsConfig,
)
from openhands.storage.data_models.settings import Settings
from openhands.storage.local import LocalFileStore
from openhands.storage.settings.file_settings_store import FileSettingsStore

DOWN = "\x1b[B"
UP = "\x1b[A"
ENTER = "\r"
ESC = "\x1b"
CTRL_C = "\x03"
CTRL_D = "\x04"
CLEAR_LINE = "\x15"  # Ctrl-U: drop the prefilled value

MODELS = [
    "openhands/claude-sonnet-4-20250514",
    "anthropic/claude-sonnet-4-20250514",
    "anthropic/claude-opus-4-20250514",
    "openai/gpt-5-2025-08-07",
    "openai/gpt-4o",
    "mistral/devstral-small-2505",
    "groq/llama-3.1-8b-instant",
    "groq/mixtral-8x7b",
]


@pytest.fixture(autouse=True)
def fixed_model_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_settings, "get_supported_llm_models", lambda config: list(MODELS))


@pytest.fixture
def printed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    lines: list[str] = []

    def record(*values: AnyFormattedText, **_: object) -> None:
        # Leading blank lines are spacing, not content.
        lines.append("".join(to_plain_text(value) for value in values).strip("\n"))

    monkeypatch.setattr(cli_settings, "print_formatted_text", record)
    return lines


@pytest.fixture
def config(tmp_path: Path) -> OpenHandsConfig:
    return OpenHandsConfig(file_store_path=str(tmp_path))


@pytest.fixture
def store(tmp_path: Path) -> FileSettingsStore:
    return FileSettingsStore(LocalFileStore(str(tmp_path)))


def stored_json(tmp_path: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((tmp_path / "settings.json").read_text())
    return data


class Keyboard:
    """Types one step (a string of keys) each time the flow opens a menu or a prompt.

    Keys are sent when the application that reads them starts, as a user would type them:
    sent all at once, a lone Esc would wait in the terminal parser for more input that never
    comes. The real ``cli_confirm`` and ``PromptSession`` run; they are only wrapped.
    """

    def __init__(self, pipe: PipeInput, steps: tuple[str, ...]) -> None:
        self.pipe = pipe
        self.steps = list(steps)

    def type_next_step(self) -> None:
        assert self.steps, "the flow asked one question more than the test answers"
        self.pipe.send_text(self.steps.pop(0))


Typing = Callable[..., AbstractContextManager[Keyboard]]


@pytest.fixture
def keyboard(monkeypatch: pytest.MonkeyPatch) -> Typing:
    real_confirm = cli_settings.cli_confirm

    @contextmanager
    def typing(*steps: str) -> Iterator[Keyboard]:
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            keys = Keyboard(pipe, steps)

            def confirm(*args: Any, **kwargs: Any) -> int:
                keys.type_next_step()
                return real_confirm(*args, **kwargs)

            class Session(PromptSession[str]):
                async def prompt_async(self, *args: Any, **kwargs: Any) -> str:
                    keys.type_next_step()
                    return await super().prompt_async(*args, **kwargs)

            monkeypatch.setattr(cli_settings, "cli_confirm", confirm)
            monkeypatch.setattr(cli_settings, "PromptSession", Session)
            yield keys
            assert keys.steps == [], "the flow ended before the test's last answers"

    return typing


# --- basic LLM flow (§4.2) ---------------------------------------------------------------------


async def test_basic_flow_with_the_defaults_saves_provider_model_and_key(
    config: OpenHandsConfig,
    store: FileSettingsStore,
    tmp_path: Path,
    keyboard: Typing,
    printed: list[str],
) -> None:
    with keyboard(
        ENTER,  # (Step 1/3) the menu starts on anthropic, the default provider
        ENTER,  # Use claude-sonnet-4-20250514
        "sk-ant-0123456789" + ENTER,  # (Step 3/3) API key
        ENTER,  # Yes, save
    ):
        await cli_settings.modify_llm_settings_basic(config, store)

    saved = stored_json(tmp_path)
    assert saved["llm_model"] == "anthropic/claude-sonnet-4-20250514"
    assert saved["llm_api_key"] == "sk-ant-0123456789"
    assert saved["llm_base_url"] is None
    assert saved["agent"] == "CodeActAgent"
    assert saved["enable_default_condenser"] is True
    assert "Default provider: anthropic" in printed
    assert "Default model: claude-sonnet-4-20250514" in printed

    llm = config.get_llm_config()
    assert llm.model == "anthropic/claude-sonnet-4-20250514"
    assert llm.api_key is not None and llm.api_key.get_secret_value() == "sk-ant-0123456789"
    assert config.default_agent == "CodeActAgent"
    assert isinstance(
        config.get_agent_config("CodeActAgent").condenser, LLMSummarizingCondenserConfig
    )


async def test_basic_flow_other_provider_and_typed_model(
    config: OpenHandsConfig,
    store: FileSettingsStore,
    tmp_path: Path,
    keyboard: Typing,
    printed: list[str],
) -> None:
    with keyboard(
        DOWN * 3 + ENTER,  # from anthropic down to "Select another provider"
        "nosuch" + ENTER,  # rejected, asked again
        "openai" + ENTER,
        DOWN + ENTER,  # Select another model
        ENTER,  # an empty name is refused
        "gpt-4o" + ENTER,
        "sk-openai-key" + ENTER,
        ENTER,  # Yes, save
    ):
        await cli_settings.modify_llm_settings_basic(config, store)

    saved = stored_json(tmp_path)
    assert saved["llm_model"] == "openai/gpt-4o"
    assert saved["llm_api_key"] == "sk-openai-key"
    assert saved["agent"] == "CodeActAgent"
    assert saved["enable_default_condenser"] is True
    assert "Invalid provider selected: nosuch" in printed
    assert "Model name cannot be empty" in printed
    assert "Default model: gpt-5-2025-08-07" in printed


async def test_basic_flow_warns_about_an_unlisted_model_but_keeps_it(
    config: OpenHandsConfig,
    store: FileSettingsStore,
    tmp_path: Path,
    keyboard: Typing,
    printed: list[str],
) -> None:
    with keyboard(
        DOWN + ENTER,  # openai
        DOWN + ENTER,  # Select another model
        "gpt-9-preview" + ENTER,
        "sk-x" + ENTER,
        ENTER,
    ):
        await cli_settings.modify_llm_settings_basic(config, store)

    assert stored_json(tmp_path)["llm_model"] == "openai/gpt-9-preview"
    assert any(
        line.startswith("Warning: gpt-9-preview is not in the predefined") for line in printed
    )


async def test_basic_flow_openhands_provider_lists_its_models(
    config: OpenHandsConfig,
    store: FileSettingsStore,
    tmp_path: Path,
    keyboard: Typing,
    printed: list[str],
) -> None:
    with keyboard(
        UP + ENTER,  # from anthropic up to openhands
        DOWN + ENTER,  # the second OpenHands model
        "oh-key" + ENTER,
        ENTER,
    ):
        await cli_settings.modify_llm_settings_basic(config, store)

    second = cli_settings.VERIFIED_OPENHANDS_MODELS[1]
    assert stored_json(tmp_path)["llm_model"] == f"openhands/{second}"
    assert any("app.all-hands.dev/settings/api-keys" in line for line in printed)


async def test_basic_flow_enter_keeps_the_existing_key_and_other_settings(
    config: OpenHandsConfig, store: FileSettingsStore, tmp_path: Path, keyboard: Typing
) -> None:
    await store.store(Settings(language="fr", max_iterations=7, llm_api_key=SecretStr("old")))
    llm = config.get_llm_config()
    llm.model = "anthropic/claude-opus-4-20250514"
    llm.api_key = SecretStr("sk-existing-key-1234")

    with keyboard(
        ENTER,  # anthropic (the current provider)
        ENTER,  # the menu starts on "Select another model" (current is not the default)
        ENTER,  # ...prefilled with claude-opus-4-20250514
        ENTER,  # empty key: keep the current one
        ENTER,  # Yes, save
    ):
        await cli_settings.modify_llm_settings_basic(config, store)

    saved = stored_json(tmp_path)
    assert saved["llm_model"] == "anthropic/claude-opus-4-20250514"
    assert saved["llm_api_key"] == "sk-existing-key-1234"
    assert saved["language"] == "fr"
    assert saved["max_iterations"] == 7


async def test_basic_flow_changing_provider_forgets_the_old_key(
    config: OpenHandsConfig,
    store: FileSettingsStore,
    tmp_path: Path,
    keyboard: Typing,
    printed: list[str],
) -> None:
    config.get_llm_config().api_key = SecretStr("sk-anthropic-key")

    with keyboard(
        DOWN + ENTER,  # openai
        ENTER,  # default model
        ENTER,  # empty key: refused, the anthropic key is not offered
        "sk-openai" + ENTER,
        ENTER,
    ):
        await cli_settings.modify_llm_settings_basic(config, store)

    assert "API Key cannot be empty" in printed
    assert stored_json(tmp_path)["llm_api_key"] == "sk-openai"


@pytest.mark.parametrize(
    "steps",
    [
        (ENTER, ENTER, ESC),  # Esc at the key prompt
        (ENTER, ENTER, "half-typed" + CTRL_C),  # Ctrl-C at the key prompt
        (ENTER, ENTER, CTRL_D),  # Ctrl-D at the key prompt
        (DOWN * 3 + ENTER, ESC),  # Esc at the provider prompt
        (ENTER, DOWN + ENTER, CTRL_C),  # Ctrl-C at the model prompt
        (ENTER, ENTER, "sk-key" + ENTER, DOWN + ENTER),  # No, discard
        (ENTER, ENTER, "sk-key" + ENTER, CTRL_C),  # Ctrl-C in the save menu: discard
    ],
)
async def test_basic_flow_cancel_saves_nothing(
    config: OpenHandsConfig,
    store: FileSettingsStore,
    tmp_path: Path,
    keyboard: Typing,
    steps: tuple[str, ...],
) -> None:
    model_before = config.get_llm_config().model

    with keyboard(*steps):
        await cli_settings.modify_llm_settings_basic(config, store)

    assert not (tmp_path / "settings.json").exists()
    assert await store.load() is None
    assert config.get_llm_config().model == model_before
    assert config.get_llm_config().api_key is None


# --- advanced LLM flow (§4.3) --------------------------------------------------------------------


async def test_advanced_flow_saves_all_six_answers(
    config: OpenHandsConfig,
    store: FileSettingsStore,
    tmp_path: Path,
    keyboard: Typing,
    printed: list[str],
) -> None:
    assert config.security.confirmation_mode is False
    assert config.enable_default_condenser is True

    with keyboard(
        CLEAR_LINE + "openai/my-model" + ENTER,  # (Step 1/6) prefilled with the current model
        ENTER,  # (Step 2/6) an empty base URL is refused
        "http://localhost:8000/v1" + ENTER,
        "sk-adv" + ENTER,  # (Step 3/6)
        CLEAR_LINE + "NoSuchAgent" + ENTER,  # (Step 4/6) refused
        CLEAR_LINE + "ReadOnlyAgent" + ENTER,
        UP + ENTER,  # (Step 5/6) starts on Disable; Enable
        DOWN + ENTER,  # (Step 6/6) starts on Enable; Disable
        ENTER,  # Yes, save
    ):
        await cli_settings.modify_llm_settings_advanced(config, store)

    saved = stored_json(tmp_path)
    assert saved["llm_model"] == "openai/my-model"
    assert saved["llm_base_url"] == "http://localhost:8000/v1"
    assert saved["llm_api_key"] == "sk-adv"
    assert saved["agent"] == "ReadOnlyAgent"
    assert saved["confirmation_mode"] is True
    assert saved["enable_default_condenser"] is False
    assert "Base URL cannot be empty" in printed
    assert "Invalid agent selected: NoSuchAgent" in printed

    assert config.get_llm_config().base_url == "http://localhost:8000/v1"
    assert config.default_agent == "ReadOnlyAgent"
    assert config.security.confirmation_mode is True
    assert config.enable_default_condenser is False
    condenser = config.get_agent_config("ReadOnlyAgent").condenser
    assert isinstance(condenser, ConversationWindowCondenserConfig)


async def test_advanced_flow_with_condensation_builds_a_pipeline(
    config: OpenHandsConfig, store: FileSettingsStore, tmp_path: Path, keyboard: Typing
) -> None:
    with keyboard(
        ENTER,  # keep the prefilled model
        "http://llm.local" + ENTER,
        "k" + ENTER,
        ENTER,  # CodeActAgent, prefilled
        ENTER,  # Disable (as configured)
        ENTER,  # Enable (as configured)
        ENTER,
    ):
        await cli_settings.modify_llm_settings_advanced(config, store)

    saved = stored_json(tmp_path)
    assert saved["llm_model"] == "claude-sonnet-4-20250514"
    assert saved["agent"] == "CodeActAgent"
    assert saved["confirmation_mode"] is False
    assert saved["enable_default_condenser"] is True
    condenser = config.get_agent_config("CodeActAgent").condenser
    assert isinstance(condenser, CondenserPipelineConfig)
    window, summarizing = condenser.condensers
    assert isinstance(window, ConversationWindowCondenserConfig)
    assert isinstance(summarizing, LLMSummarizingCondenserConfig)
    assert (summarizing.keep_first, summarizing.max_size) == (4, 120)


@pytest.mark.parametrize(
    "steps",
    [
        (ESC,),
        (ENTER, CTRL_C),
        (ENTER, "http://x" + ENTER, "k" + ENTER, CTRL_D),
        (ENTER, "http://x" + ENTER, "k" + ENTER, ENTER, ENTER, ENTER, DOWN + ENTER),
    ],
)
async def test_advanced_flow_cancel_saves_nothing(
    config: OpenHandsConfig,
    store: FileSettingsStore,
    tmp_path: Path,
    keyboard: Typing,
    steps: tuple[str, ...],
) -> None:
    with keyboard(*steps):
        await cli_settings.modify_llm_settings_advanced(config, store)

    assert not (tmp_path / "settings.json").exists()
    assert config.get_llm_config().base_url is None


# --- search API flow (§4.4) ----------------------------------------------------------------------


async def test_search_flow_sets_a_key(
    config: OpenHandsConfig,
    store: FileSettingsStore,
    tmp_path: Path,
    keyboard: Typing,
    printed: list[str],
) -> None:
    with keyboard(
        ENTER,  # Set/Update API Key
        "sk-wrong" + ENTER,  # refused
        "tvly-abc123" + ENTER,
        ENTER,  # Yes, save
    ):
        await cli_settings.modify_search_api_settings(config, store)

    assert "Current Search API Key: Not Set" in printed
    assert 'Search API Key must start with "tvly-": sk-wrong' in printed
    assert stored_json(tmp_path)["search_api_key"] == "tvly-abc123"
    assert config.search_api_key is not None
    assert config.search_api_key.get_secret_value() == "tvly-abc123"


async def test_search_flow_removes_the_key(
    config: OpenHandsConfig,
    store: FileSettingsStore,
    tmp_path: Path,
    keyboard: Typing,
    printed: list[str],
) -> None:
    await store.store(Settings(search_api_key=SecretStr("tvly-old"), language="de"))
    config.search_api_key = SecretStr("tvly-old")

    with keyboard(DOWN + ENTER, ENTER):  # Remove API Key, Yes, save
        await cli_settings.modify_search_api_settings(config, store)

    assert "Current Search API Key: ********" in printed
    saved = stored_json(tmp_path)
    assert saved["search_api_key"] is None
    assert saved["language"] == "de"
    assert config.search_api_key is None


@pytest.mark.parametrize(
    "steps",
    [
        (DOWN * 2 + ENTER,),  # Keep current setting
        (ESC,),  # Esc in the menu: its last entry, keep
        (ENTER, ESC),  # Esc at the key prompt
        (ENTER, "tvly-x" + ENTER, DOWN + ENTER),  # No, discard
    ],
)
async def test_search_flow_cancel_saves_nothing(
    config: OpenHandsConfig,
    store: FileSettingsStore,
    tmp_path: Path,
    keyboard: Typing,
    steps: tuple[str, ...],
) -> None:
    with keyboard(*steps):
        await cli_settings.modify_search_api_settings(config, store)

    assert not (tmp_path / "settings.json").exists()
    assert config.search_api_key is None


# --- the Settings frame (§6.2) -----------------------------------------------------------------


def frame_text(monkeypatch: pytest.MonkeyPatch, config: OpenHandsConfig) -> tuple[str, str]:
    frames: list[tuple[str, str]] = []

    def record(container: Container, **_: object) -> None:
        assert isinstance(container, Frame)
        assert isinstance(container.body, TextArea)
        frames.append((to_plain_text(container.title), container.body.text))

    monkeypatch.setattr(cli_settings, "print_container", record)
    cli_settings.display_settings(config)
    assert len(frames) == 1
    return frames[0]


def test_settings_frame_for_a_provider_model(
    monkeypatch: pytest.MonkeyPatch, config: OpenHandsConfig, tmp_path: Path
) -> None:
    llm = config.get_llm_config()
    llm.model = "openai/gpt-4o"
    llm.api_key = SecretStr("sk-secret")
    config.security.confirmation_mode = True

    title, text = frame_text(monkeypatch, config)

    assert title == "Settings"
    assert text.split("\n") == [
        "   LLM Provider:        openai",
        "   LLM Model:           openai/gpt-4o",
        "   API Key:             ********",
        "   Agent:               CodeActAgent",
        "   Confirmation Mode:   Enabled",
        "   Memory Condensation: Enabled",
        "   Search API Key:      Not Set",
        f"   Configuration File:  {tmp_path / 'settings.json'}",
    ]
    assert "sk-secret" not in text


def test_settings_frame_with_a_base_url(
    monkeypatch: pytest.MonkeyPatch, config: OpenHandsConfig
) -> None:
    llm = config.get_llm_config()
    llm.model = "my-model"
    llm.base_url = "http://localhost:8000/v1"
    config.enable_default_condenser = False
    config.search_api_key = SecretStr("tvly-x")

    _, text = frame_text(monkeypatch, config)

    lines = text.split("\n")
    assert lines[:3] == [
        "   Custom Model:        my-model",
        "   Base URL:            http://localhost:8000/v1",
        "   API Key:             Not Set",
    ]
    assert "   Confirmation Mode:   Disabled" in lines
    assert "   Memory Condensation: Disabled" in lines
    assert "   Search API Key:      ********" in lines


def test_agent_choices_keep_the_built_ins_next_to_a_custom_agent() -> None:
    """A custom agent registered first (config.toml's, at start-up) must not hide the
    built-in ones: a fresh process, where the agent hub is not imported yet."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from openhands.cli import settings_advanced\n"
        "from openhands.controller.agent import Agent\n"
        "assert 'openhands.agenthub' not in sys.modules\n"
        "class MyAgent(Agent):\n"
        "    def step(self, state):\n"
        "        raise NotImplementedError\n"
        "Agent.register('MyAgent', MyAgent)\n"
        "agents = settings_advanced._registered_agents()\n"
        "print(*(name in agents for name in ('MyAgent', 'CodeActAgent', 'ReadOnlyAgent')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "True"]
