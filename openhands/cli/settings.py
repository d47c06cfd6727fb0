"""The settings flows of the terminal app (cli.md §4) and the ``/settings`` frame (§6.2).

Each flow asks its questions first and writes nothing until the user picks ``Yes, save``; then
it updates both the running config and ``settings.json`` through the settings store (changes
take full effect after a restart). In a free-text prompt, Esc, Ctrl-C or Ctrl-D cancel the
whole flow.

The names the reference tests patch (``PromptSession``, ``cli_confirm``, ``print_formatted_text``,
``print_container``, ``organize_models_and_providers``, ``get_supported_llm_models``, ``Agent``,
the ``VERIFIED_*`` lists and the condenser config classes) are module globals, looked up at call
time, also by the advanced flow in ``settings_advanced``. Listing the models imports LiteLLM, so
that happens only when a flow starts.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from prompt_toolkit import PromptSession, print_formatted_text
from prompt_toolkit.completion import Completer, FuzzyWordCompleter
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.shortcuts import print_container
from prompt_toolkit.widgets import Frame, TextArea
from pydantic import SecretStr

from openhands.cli.pt_style import COLOR_GREY
from openhands.cli.settings_advanced import modify_llm_settings_advanced
from openhands.cli.tui import DEFAULT_STYLE, UserCancelledError, cli_confirm, kb_cancel
from openhands.cli.utils import (
    VERIFIED_ANTHROPIC_MODELS,
    VERIFIED_MISTRAL_MODELS,
    VERIFIED_OPENAI_MODELS,
    VERIFIED_OPENHANDS_MODELS,
    VERIFIED_PROVIDERS,
    extract_model_and_provider,
    organize_models_and_providers,
)
from openhands.controller.agent import Agent
from openhands.core.config.condenser_config import (
    CondenserPipelineConfig,
    ConversationWindowCondenserConfig,
    LLMSummarizingCondenserConfig,
)
from openhands.core.config.config_utils import OH_DEFAULT_AGENT
from openhands.storage.data_models.settings import Settings
from openhands.utils.llm import get_supported_llm_models

if TYPE_CHECKING:
    from openhands.core.config import OpenHandsConfig
    from openhands.storage.settings.settings_store import SettingsStore

__all__ = [
    "CANCELLED",
    "Agent",
    "CondenserPipelineConfig",
    "ConversationWindowCondenserConfig",
    "LLMSummarizingCondenserConfig",
    "ask_api_key",
    "display_settings",
    "get_validated_input",
    "load_settings",
    "modify_llm_settings_advanced",
    "modify_llm_settings_basic",
    "modify_search_api_settings",
    "new_prompt_session",
    "save_settings_confirmation",
    "secret_or_none",
    "secret_text",
]

# What ends a flow without saving: Esc (kb_cancel), Ctrl-C, Ctrl-D.
CANCELLED = (UserCancelledError, KeyboardInterrupt, EOFError)

_SETTINGS_FILENAME = "settings.json"
_MASK = "********"
_NOT_SET = "Not Set"
_FALLBACK_MODEL = "claude-sonnet-4-20250514"
_SELECT_ANOTHER_PROVIDER = "Select another provider"
_SEARCH_KEY_PREFIX = "tvly-"
_OPENHANDS_KEYS_URL = "https://app.all-hands.dev/settings/api-keys"


class _ProviderEntry(Protocol):
    """One value of ``organize_models_and_providers``: a ``ProviderInfo`` or a plain dict."""

    def __getitem__(self, key: str, /) -> str | list[str]: ...


# --- the Settings frame ------------------------------------------------------------------------


def _masked(secret: SecretStr | None) -> str:
    return _MASK if secret else _NOT_SET


def _enabled(flag: bool | None) -> str:
    return "Enabled" if flag else "Disabled"


def _llm_rows(config: OpenHandsConfig) -> list[tuple[str, str]]:
    llm = config.get_llm_config()
    model = str(llm.model or "")
    if llm.base_url:
        return [
            ("Custom Model", model),
            ("Base URL", str(llm.base_url)),
            ("API Key", _masked(llm.api_key)),
        ]
    provider = extract_model_and_provider(model).provider if model else ""
    return [
        ("LLM Provider", provider or "Unknown"),
        ("LLM Model", model),
        ("API Key", _masked(llm.api_key)),
    ]


def display_settings(config: OpenHandsConfig) -> None:
    """The ``Settings`` frame: label, colon, then the value in an aligned column."""
    rows = [
        *_llm_rows(config),
        ("Agent", str(config.default_agent)),
        ("Confirmation Mode", _enabled(config.security.confirmation_mode)),
        ("Memory Condensation", _enabled(config.enable_default_condenser)),
        ("Search API Key", _masked(config.search_api_key)),
        ("Configuration File", str(Path(config.file_store_path) / _SETTINGS_FILENAME)),
    ]
    labelled = [(f"   {label}:", value) for label, value in rows]
    width = max(len(label) for label, _ in labelled)
    text = "\n".join(f"{label:<{width}} {value}" for label, value in labelled)
    body = TextArea(text=text, read_only=True, wrap_lines=True, style=COLOR_GREY)
    print_container(Frame(body, title="Settings", style=f"fg:{COLOR_GREY}"))


# --- prompts -------------------------------------------------------------------------------


def _notice(message: str) -> None:
    # Only markup characters are escaped: quotes stay as typed in the HTML source.
    print_formatted_text("")
    print_formatted_text(
        HTML(f"<grey>{html.escape(message, quote=False)}</grey>"), style=DEFAULT_STYLE
    )
    print_formatted_text("")


async def get_validated_input(
    session: PromptSession[str],
    prompt_text: str,
    completer: Completer | None = None,
    validator: Callable[[str], bool] | None = None,
    error_message: str = "Input cannot be empty",
    *,
    default_value: str = "",
    enter_keeps_value: str | None = None,
) -> str:
    """Ask until the answer passes ``validator`` (or, without one, is non-empty).

    ``default_value`` is prefilled for editing; an empty answer means ``enter_keeps_value``
    when that is given (used to keep a secret without showing it). Raises what the prompt
    raises on cancel: ``UserCancelledError``, ``KeyboardInterrupt``, ``EOFError``.
    """
    session.completer = completer
    while True:
        answer = await session.prompt_async(prompt_text, default=default_value)
        value = answer.strip()
        if not value and enter_keeps_value is not None:
            value = enter_keeps_value
        valid = validator(value) if validator is not None else bool(value)
        if valid:
            return value
        _notice(f"{error_message}: {value}" if value else error_message)


def save_settings_confirmation(config: OpenHandsConfig) -> bool:
    choice = cli_confirm(
        config,
        "\nSave new settings? (They will take effect after restart)",
        ["Yes, save", "No, discard"],
    )
    return choice == 0


def new_prompt_session() -> PromptSession[str]:
    return PromptSession(key_bindings=kb_cancel(), style=DEFAULT_STYLE)


def secret_text(secret: SecretStr | None) -> str:
    return secret.get_secret_value() if secret else ""


def _key_hint(key: str) -> str:
    # Both ends only when enough of the key stays hidden between them.
    return f"{key[:4]}***{key[-4:]}" if len(key) > 8 else "***"


async def ask_api_key(session: PromptSession[str], step: str, current_key: str) -> str:
    """``step`` is e.g. ``(Step 3/3) Enter API Key``; Enter keeps an existing key."""
    if current_key:
        prompt_text = (
            f"{step} [{_key_hint(current_key)}] "
            "(CTRL-c to cancel, ENTER to keep current, type new to change): "
        )
    else:
        prompt_text = f"{step} (CTRL-c to cancel): "
    return await get_validated_input(
        session,
        prompt_text,
        error_message="API Key cannot be empty",
        enter_keeps_value=current_key or None,
    )


# --- basic LLM flow (§4.2) -----------------------------------------------------------------


@dataclass(frozen=True)
class _CurrentLLM:
    provider: str
    model: str
    api_key: str


def _current_llm(config: OpenHandsConfig) -> _CurrentLLM:
    llm = config.get_llm_config()
    info = extract_model_and_provider(llm.model) if llm.model else None
    return _CurrentLLM(
        provider=info.provider if info else "",
        model=info.model if info else "",
        api_key=secret_text(llm.api_key),
    )


def _verified_models(provider: str) -> list[str]:
    verified: Mapping[str, list[str]] = {
        "openai": VERIFIED_OPENAI_MODELS,
        "anthropic": VERIFIED_ANTHROPIC_MODELS,
        "mistral": VERIFIED_MISTRAL_MODELS,
        "openhands": VERIFIED_OPENHANDS_MODELS,
    }
    return list(verified.get(provider, []))


def _models_of(provider: str, organized: Mapping[str, _ProviderEntry]) -> list[str]:
    """The provider's models, its verified ones first."""
    verified = _verified_models(provider)
    known = organized[provider]["models"] if provider in organized else []
    listed = known if isinstance(known, list) else []
    return verified + [model for model in listed if model not in verified]


def _option_at(options: Sequence[str], choice: int) -> str | None:
    """The menu entry at ``choice``; ``None`` when the index is not one of the entries."""
    try:
        return options[choice]
    except (IndexError, TypeError):
        return None


def _initial_provider_index(verified: list[str], preferred: str) -> int:
    if preferred in verified:
        return verified.index(preferred)
    # An unlisted provider is reached through the last entry, "Select another provider".
    return len(verified) if preferred else 0


async def _choose_provider(
    config: OpenHandsConfig,
    session: PromptSession[str],
    organized: Mapping[str, _ProviderEntry],
    current_provider: str,
) -> str:
    verified = [provider for provider in VERIFIED_PROVIDERS if provider in organized]
    others = [provider for provider in organized if provider not in verified]
    default_provider = "anthropic" if "anthropic" in organized else (verified + others or [""])[0]
    print_formatted_text(
        HTML("\n<grey>Default provider: </grey><green>{}</green>").format(default_provider),
        style=DEFAULT_STYLE,
    )
    options = [*verified, _SELECT_ANOTHER_PROVIDER]
    choice = cli_confirm(
        config,
        "(Step 1/3) Select LLM Provider:",
        options,
        initial_selection=_initial_provider_index(verified, current_provider or default_provider),
    )
    picked = _option_at(options, choice)
    if picked is not None and picked != _SELECT_ANOTHER_PROVIDER:
        return picked
    return await get_validated_input(
        session,
        "(Step 1/3) Select LLM Provider (TAB for options, CTRL-c to cancel): ",
        completer=FuzzyWordCompleter(verified + others, WORD=True),
        validator=lambda value: value in organized,
        error_message="Invalid provider selected",
        # Prefilled only when the current provider is one the menu does not list.
        default_value=current_provider if current_provider not in verified else "",
    )


def _choose_openhands_model(config: OpenHandsConfig, current_model: str) -> str:
    models = list(VERIFIED_OPENHANDS_MODELS)
    initial = models.index(current_model) if current_model in models else 0
    choice = cli_confirm(
        config,
        "(Step 2/3) Select Available OpenHands Model:",
        models,
        initial_selection=initial,
    )
    picked = _option_at(models, choice)
    return picked if picked is not None else models[initial]


async def _choose_model(
    config: OpenHandsConfig,
    session: PromptSession[str],
    provider: str,
    models: list[str],
    default_model: str,
    current_model: str,
) -> str:
    if provider == "openhands" and VERIFIED_OPENHANDS_MODELS:
        return _choose_openhands_model(config, current_model)
    print_formatted_text(
        HTML("\n<grey>Default model: </grey><green>{}</green>").format(default_model),
        style=DEFAULT_STYLE,
    )
    keeps_default = (current_model or default_model) == default_model
    choice = cli_confirm(
        config,
        "Do you want to use a different model?",
        [f"Use {default_model}", "Select another model"],
        initial_selection=0 if keeps_default else 1,
    )
    if choice != 1:
        return default_model

    def accept_model(name: str) -> bool:
        if not name:
            return False
        if name not in models:
            # Any name is allowed (LiteLLM knows more than we list); only warn.
            print_formatted_text(
                HTML(
                    "<yellow>Warning: {} is not in the predefined list for provider {}. "
                    "Make sure this model name is correct.</yellow>"
                ).format(name, provider)
            )
        return True

    return await get_validated_input(
        session,
        "(Step 2/3) Select LLM Model (TAB for options, CTRL-c to cancel): ",
        completer=FuzzyWordCompleter(models, WORD=True),
        validator=accept_model,
        error_message="Model name cannot be empty",
        default_value=current_model if current_model != default_model else "",
    )


def _full_model_name(provider: str, model: str, organized: Mapping[str, _ProviderEntry]) -> str:
    separator = organized[provider]["separator"] if provider in organized else "/"
    if not isinstance(separator, str) or not separator:
        separator = "/"
    return f"{provider}{separator}{model}"


async def load_settings(settings_store: SettingsStore) -> Settings:
    return await settings_store.load() or Settings()


def secret_or_none(value: str) -> SecretStr | None:
    return SecretStr(value) if value.strip() else None


async def modify_llm_settings_basic(config: OpenHandsConfig, settings_store: SettingsStore) -> None:
    """Provider, model and API key in three steps (cli.md §4.2)."""
    organized = organize_models_and_providers(get_supported_llm_models(config))
    session = new_prompt_session()
    current = _current_llm(config)
    try:
        provider = await _choose_provider(config, session, organized, current.provider)
        if provider != current.provider:
            # Another provider's model name and key would not work with this one.
            current = _CurrentLLM(provider=provider, model="", api_key="")
        provider_models = _models_of(provider, organized)
        # Set default model to the best verified model for the provider: the verified ones
        # come first in provider_models, then the rest LiteLLM lists.
        default_model = provider_models[0] if provider_models else _FALLBACK_MODEL
        # Show the default model and offer another one (a menu for OpenHands models).
        model = await _choose_model(
            config, session, provider, provider_models, default_model, current.model
        )
        if provider == "openhands":
            print_formatted_text(
                f"\nYour OpenHands LLM API key is on the API Keys page of OpenHands Cloud: "
                f"{_OPENHANDS_KEYS_URL}"
            )
        api_key = await ask_api_key(session, "(Step 3/3) Enter API Key", current.api_key)
    except CANCELLED:
        return
    if not save_settings_confirmation(config):
        return

    full_model = _full_model_name(provider, model, organized)
    llm = config.get_llm_config()
    llm.model = full_model
    llm.api_key = secret_or_none(api_key)
    llm.base_url = None
    config.set_llm_config(llm)
    config.default_agent = OH_DEFAULT_AGENT
    config.enable_default_condenser = True
    agent_config = config.get_agent_config(OH_DEFAULT_AGENT)
    agent_config.condenser = LLMSummarizingCondenserConfig(llm_config=llm, type="llm")
    config.set_agent_config(agent_config, OH_DEFAULT_AGENT)

    settings = await load_settings(settings_store)
    settings.llm_model = full_model
    settings.llm_api_key = secret_or_none(api_key)
    settings.llm_base_url = None
    settings.agent = OH_DEFAULT_AGENT
    settings.enable_default_condenser = True
    await settings_store.store(settings)


# --- search API flow (§4.4) ----------------------------------------------------------------


async def _ask_search_key(config: OpenHandsConfig, session: PromptSession[str]) -> str | None:
    """The new key, ``""`` to remove it, or None to keep the current setting."""
    print_formatted_text(
        HTML("\n<grey>A Tavily key lets the agent search the web (https://tavily.com/).</grey>"),
        style=DEFAULT_STYLE,
    )
    print_formatted_text("")
    print_formatted_text(
        HTML("<grey>Current Search API Key: </grey><green>{}</green>").format(
            _masked(config.search_api_key)
        ),
        style=DEFAULT_STYLE,
    )
    print_formatted_text("")
    choice = cli_confirm(
        config,
        "Do you want to modify the Search API Key?",
        ["Set/Update API Key", "Remove API Key", "Keep current setting"],
    )
    if choice == 0:
        return await get_validated_input(
            session,
            f"Enter Tavily Search API Key (starts with {_SEARCH_KEY_PREFIX}, CTRL-c to cancel): ",
            validator=lambda value: value.startswith(_SEARCH_KEY_PREFIX),
            error_message=f'Search API Key must start with "{_SEARCH_KEY_PREFIX}"',
        )
    if choice == 1:
        return ""
    return None


async def modify_search_api_settings(
    config: OpenHandsConfig, settings_store: SettingsStore
) -> None:
    """Set, remove or keep the Tavily search key (cli.md §4.4)."""
    session = new_prompt_session()
    try:
        search_key = await _ask_search_key(config, session)
    except CANCELLED:
        return
    if search_key is None or not save_settings_confirmation(config):
        return

    config.search_api_key = secret_or_none(search_key)
    settings = await load_settings(settings_store)
    settings.search_api_key = secret_or_none(search_key)
    await settings_store.store(settings)
