"""The advanced LLM settings flow of the terminal app (cli.md §4.3): custom model, base
URL, API key, agent, confirmation mode and memory condensation, in six steps.

The names scripts and tests replace (``cli_confirm``, ``PromptSession`` through
``new_prompt_session``, ``Agent``, the condenser config classes, cli.md §15) and the
shared prompt helpers are taken from ``openhands.cli.settings`` when the flow runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from prompt_toolkit.completion import FuzzyWordCompleter

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

    from openhands.core.config import OpenHandsConfig
    from openhands.storage.settings.settings_store import SettingsStore


@dataclass(frozen=True)
class _AdvancedAnswers:
    model: str
    base_url: str
    api_key: str
    agent: str
    confirmation_mode: bool
    condenser: bool


def _registered_agents() -> list[str]:
    # The built-in agents register themselves when the hub is imported (heavy, so only now).
    # Always, not only when nothing is registered: custom agents from config.toml are
    # registered at start-up, and alone they used to hide every built-in one.
    import openhands.agenthub  # noqa: F401
    from openhands.cli import settings as hooks  # the patch points, looked up now

    return list(hooks.Agent.list_agents())


def _toggle(config: OpenHandsConfig, question: str, enabled: bool | None) -> bool:
    from openhands.cli import settings as hooks  # the patch points, looked up now

    choice = hooks.cli_confirm(
        config, question, ["Enable", "Disable"], initial_selection=0 if enabled else 1
    )
    return choice == 0


async def _ask_advanced(config: OpenHandsConfig, session: PromptSession[str]) -> _AdvancedAnswers:
    from openhands.cli import settings as hooks  # the patch points, looked up now

    llm = config.get_llm_config()
    model = await hooks.get_validated_input(
        session,
        "(Step 1/6) Custom Model (CTRL-c to cancel): ",
        error_message="Custom Model cannot be empty",
        default_value=llm.model or "",
    )
    base_url = await hooks.get_validated_input(
        session,
        "(Step 2/6) Base URL (CTRL-c to cancel): ",
        error_message="Base URL cannot be empty",
        default_value=llm.base_url or "",
    )
    api_key = await hooks.ask_api_key(session, "(Step 3/6) API Key", hooks.secret_text(llm.api_key))
    agents = _registered_agents()
    agent = await hooks.get_validated_input(
        session,
        "(Step 4/6) Agent (TAB for options, CTRL-c to cancel): ",
        completer=FuzzyWordCompleter(agents, WORD=True),
        validator=lambda value: value in agents,
        error_message="Invalid agent selected",
        default_value=config.default_agent or "",
    )
    confirmation_mode = _toggle(
        config,
        "(Step 5/6) Confirmation Mode (CTRL-c to cancel):",
        config.security.confirmation_mode,
    )
    condenser = _toggle(
        config,
        "(Step 6/6) Memory Condensation (CTRL-c to cancel):",
        config.enable_default_condenser,
    )
    return _AdvancedAnswers(model, base_url, api_key, agent, confirmation_mode, condenser)


def _apply_advanced_to_config(config: OpenHandsConfig, answers: _AdvancedAnswers) -> None:
    from openhands.cli import settings as hooks  # the patch points, looked up now

    llm = config.get_llm_config()
    llm.model = answers.model
    llm.base_url = answers.base_url
    llm.api_key = hooks.secret_or_none(answers.api_key)
    config.set_llm_config(llm)
    config.default_agent = answers.agent
    config.security.confirmation_mode = answers.confirmation_mode
    config.enable_default_condenser = answers.condenser
    agent_config = config.get_agent_config(answers.agent)
    if answers.condenser:
        agent_config.condenser = hooks.CondenserPipelineConfig(
            type="pipeline",
            condensers=[
                hooks.ConversationWindowCondenserConfig(type="conversation_window"),
                hooks.LLMSummarizingCondenserConfig(
                    llm_config=llm, type="llm", keep_first=4, max_size=120
                ),
            ],
        )
    else:
        agent_config.condenser = hooks.ConversationWindowCondenserConfig(type="conversation_window")
    config.set_agent_config(agent_config, answers.agent)


async def modify_llm_settings_advanced(
    config: OpenHandsConfig, settings_store: SettingsStore
) -> None:
    """Custom model, base URL, key, agent, confirmation mode, condenser (cli.md §4.3)."""
    from openhands.cli import settings as hooks  # the patch points, looked up now

    session = hooks.new_prompt_session()
    try:
        answers = await _ask_advanced(config, session)
    except hooks.CANCELLED:
        return
    if not hooks.save_settings_confirmation(config):
        return

    _apply_advanced_to_config(config, answers)
    settings = await hooks.load_settings(settings_store)
    settings.llm_model = answers.model
    settings.llm_api_key = hooks.secret_or_none(answers.api_key)
    settings.llm_base_url = answers.base_url
    settings.agent = answers.agent
    settings.confirmation_mode = answers.confirmation_mode
    settings.enable_default_condenser = answers.condenser
    await settings_store.store(settings)
