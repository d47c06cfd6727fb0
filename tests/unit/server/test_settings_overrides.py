"""`apply_settings`: the per-conversation config built from the app config and user settings."""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr

from openhands.core.config import (
    CondenserPipelineConfig,
    LLMSummarizingCondenserConfig,
    OpenHandsConfig,
    load_openhands_config,
)
from openhands.server.session.settings_overrides import apply_settings
from openhands.storage.data_models.settings import Settings


def _config_without_condenser_section(tmp_path: Path, monkeypatch) -> OpenHandsConfig:
    (tmp_path / "config.toml").write_text('[core]\nruntime = "local"\n\n[llm]\nnum_retries = 0\n')
    monkeypatch.chdir(tmp_path)
    return load_openhands_config(config_file=str(tmp_path / "config.toml"))


def _user(enable_default_condenser: bool) -> Settings:
    return Settings(
        llm_model="openai/test-model",
        llm_api_key=SecretStr("sk-user"),
        llm_base_url="http://127.0.0.1:9/v1",
        enable_default_condenser=enable_default_condenser,
    )


def test_the_config_files_default_condenser_uses_the_users_model(tmp_path, monkeypatch) -> None:
    """config.toml without [condenser] gives the agent a summarizing condenser on the [llm]
    model; with the user's own model in settings it must summarize with that model, not
    with the server's unset default (which fails once the history grows long enough)."""
    config = _config_without_condenser_section(tmp_path, monkeypatch)
    condenser = config.get_agent_config().condenser
    assert isinstance(condenser, LLMSummarizingCondenserConfig)
    assert condenser.llm_config.model != "openai/test-model"

    applied = apply_settings(config, _user(enable_default_condenser=False))
    condenser = applied.get_agent_config(applied.default_agent).condenser
    assert isinstance(condenser, LLMSummarizingCondenserConfig)
    assert condenser.llm_config.model == "openai/test-model"
    assert condenser.llm_config.base_url == "http://127.0.0.1:9/v1"
    assert condenser.llm_config.api_key is not None
    assert condenser.llm_config.api_key.get_secret_value() == "sk-user"
    # The app config itself is untouched.
    assert config.get_agent_config().condenser.llm_config.model != "openai/test-model"


def test_the_settings_default_condenser_pipeline_uses_the_users_model(
    tmp_path, monkeypatch
) -> None:
    config = _config_without_condenser_section(tmp_path, monkeypatch)
    applied = apply_settings(config, _user(enable_default_condenser=True))
    pipeline = applied.get_agent_config(applied.default_agent).condenser
    assert isinstance(pipeline, CondenserPipelineConfig)
    summarizing = [c for c in pipeline.condensers if isinstance(c, LLMSummarizingCondenserConfig)]
    assert [c.llm_config.model for c in summarizing] == ["openai/test-model"]


def test_a_condenser_with_its_own_model_keeps_it(tmp_path, monkeypatch) -> None:
    (tmp_path / "config.toml").write_text(
        '[llm]\nnum_retries = 0\n\n[llm.summarizer]\nmodel = "openai/small"\n\n'
        '[condenser]\ntype = "llm"\nllm_config = "summarizer"\n'
    )
    monkeypatch.chdir(tmp_path)
    config = load_openhands_config(config_file=str(tmp_path / "config.toml"))
    applied = apply_settings(config, _user(enable_default_condenser=False))
    condenser = applied.get_agent_config(applied.default_agent).condenser
    assert isinstance(condenser, LLMSummarizingCondenserConfig)
    assert condenser.llm_config.model == "openai/small"
