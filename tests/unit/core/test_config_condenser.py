"""Condenser config types and their defaults (spec agent.md §6.2)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from pydantic import ValidationError

from openhands.core.config import (
    AgentConfig,
    AmortizedForgettingCondenserConfig,
    BrowserOutputCondenserConfig,
    CondenserPipelineConfig,
    ConversationWindowCondenserConfig,
    LLMAttentionCondenserConfig,
    LLMConfig,
    LLMSummarizingCondenserConfig,
    NoOpCondenserConfig,
    ObservationMaskingCondenserConfig,
    OpenHandsConfig,
    RecentEventsCondenserConfig,
    StructuredSummaryCondenserConfig,
    condenser_config_from_toml_section,
    create_condenser_config,
    load_from_toml,
)
from openhands.core.config.condenser_config import CONDENSER_CONFIG_TYPES
from openhands.memory.condenser import Condenser
from openhands.memory.condenser.impl.no_op_condenser import NoOpCondenser


def test_every_spec_type_is_known() -> None:
    assert set(CONDENSER_CONFIG_TYPES) == {
        "noop",
        "observation_masking",
        "browser_output_masking",
        "recent",
        "amortized",
        "llm",
        "structured",
        "llm_attention",
        "pipeline",
        "conversation_window",
    }


def test_defaults() -> None:
    llm = LLMConfig()
    assert ObservationMaskingCondenserConfig().attention_window == 100
    assert BrowserOutputCondenserConfig().attention_window == 1
    recent = RecentEventsCondenserConfig()
    assert (recent.keep_first, recent.max_events) == (1, 100)
    amortized = AmortizedForgettingCondenserConfig()
    assert (amortized.max_size, amortized.keep_first) == (100, 1)
    for cls in (LLMSummarizingCondenserConfig, StructuredSummaryCondenserConfig):
        summarizing = cls(llm_config=llm)
        assert (summarizing.keep_first, summarizing.max_size) == (1, 100)
        assert summarizing.max_event_length == 10_000
    attention = LLMAttentionCondenserConfig(llm_config=llm)
    assert (attention.max_size, attention.keep_first) == (100, 1)
    assert CondenserPipelineConfig().condensers == []


@pytest.mark.parametrize(
    ("cls", "kwargs"),
    [
        (ObservationMaskingCondenserConfig, {"attention_window": 0}),
        (BrowserOutputCondenserConfig, {"attention_window": 0}),
        (RecentEventsCondenserConfig, {"keep_first": -1}),
        (RecentEventsCondenserConfig, {"max_events": 0}),
        (AmortizedForgettingCondenserConfig, {"max_size": 1}),
        (AmortizedForgettingCondenserConfig, {"keep_first": -1}),
    ],
)
def test_bounds(cls: type, kwargs: dict[str, int]) -> None:
    with pytest.raises(ValidationError):
        cls(**kwargs)


def test_llm_config_is_required() -> None:
    with pytest.raises(ValidationError, match="llm_config"):
        LLMSummarizingCondenserConfig()  # type: ignore[call-arg]


def test_unknown_keys_rejected() -> None:
    with pytest.raises(ValidationError):
        NoOpCondenserConfig(window=3)  # type: ignore[call-arg]


def test_create_condenser_config() -> None:
    config = create_condenser_config("recent", {"max_events": 10})
    assert isinstance(config, RecentEventsCondenserConfig)
    assert config.max_events == 10
    with pytest.raises(ValueError, match="Unknown condenser type"):
        create_condenser_config("magic", {})


def test_pipeline_members_are_typed_and_resolved() -> None:
    llms = {"llm": LLMConfig(model="base"), "small": LLMConfig(model="small")}
    section = {
        "type": "pipeline",
        "condensers": [
            {"type": "browser_output_masking", "attention_window": 2},
            {"type": "llm", "llm_config": "small", "max_size": 20},
        ],
    }
    config = condenser_config_from_toml_section(section, llms)["condenser"]
    assert isinstance(config, CondenserPipelineConfig)
    first, second = config.condensers
    assert isinstance(first, BrowserOutputCondenserConfig) and first.attention_window == 2
    assert isinstance(second, LLMSummarizingCondenserConfig)
    assert second.llm_config.model == "small"


def test_agent_condenser_field_accepts_a_typed_dict() -> None:
    agent = AgentConfig.model_validate({"condenser": {"type": "amortized", "max_size": 10}})
    assert isinstance(agent.condenser, AmortizedForgettingCondenserConfig)
    assert agent.condenser.max_size == 10
    assert isinstance(AgentConfig().condenser, ConversationWindowCondenserConfig)


def test_structured_and_attention_resolve_llm_names() -> None:
    llms = {"llm": LLMConfig(model="base"), "s": LLMConfig(model="s")}
    structured = condenser_config_from_toml_section({"type": "structured", "llm_config": "s"}, llms)
    assert structured["condenser"].llm_config.model == "s"  # type: ignore[attr-defined]
    attention = condenser_config_from_toml_section({"type": "llm_attention"}, llms)
    # llm_config is required and was not given: the section is invalid → noop.
    assert isinstance(attention["condenser"], NoOpCondenserConfig)


def test_inline_llm_config_table() -> None:
    section = {"type": "llm", "llm_config": {"model": "inline-model"}}
    config = condenser_config_from_toml_section(section, {})["condenser"]
    assert isinstance(config, LLMSummarizingCondenserConfig)
    assert config.llm_config.model == "inline-model"


def test_a_missing_llm_section_means_no_condensing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # python-api.md §4 (defect a3): not an LLM condenser on a model nobody chose.
    toml = tmp_path / "config.toml"
    toml.write_text(
        '[llm]\nmodel = "gpt-4o"\n\n'
        '[llm.small]\nmodel = "gpt-4o-mini"\n\n'
        '[condenser]\ntype = "llm"\nllm_config = "missing_llm"\nkeep_first = 2\nmax_size = 50\n'
    )
    cfg = OpenHandsConfig()
    with caplog.at_level(logging.WARNING, logger="openhands"):
        load_from_toml(cfg, str(toml))
    condenser_config = cfg.get_agent_config().condenser
    assert isinstance(condenser_config, NoOpCondenserConfig)
    assert any("missing_llm" in r.getMessage() for r in caplog.records if r.levelname == "WARNING")
    condenser = Condenser.from_config(condenser_config, llm_registry=None)  # type: ignore[arg-type]
    assert isinstance(condenser, NoOpCondenser)

    # A section that exists is used, and `llm` names the default one.
    toml.write_text(toml.read_text().replace('"missing_llm"', '"small"'))
    cfg = OpenHandsConfig()
    load_from_toml(cfg, str(toml))
    small = cfg.get_agent_config().condenser
    assert isinstance(small, LLMSummarizingCondenserConfig)
    assert (small.llm_config.model, small.keep_first, small.max_size) == ("gpt-4o-mini", 2, 50)
    default = condenser_config_from_toml_section({"type": "llm", "llm_config": "llm"}, {})
    assert isinstance(default["condenser"], LLMSummarizingCondenserConfig)


def test_a_pipeline_member_naming_a_missing_llm_section_means_no_condensing() -> None:
    section = {
        "type": "pipeline",
        "condensers": [{"type": "browser_output_masking"}, {"type": "llm", "llm_config": "gone"}],
    }
    config = condenser_config_from_toml_section(section, {"llm": LLMConfig()})["condenser"]
    assert isinstance(config, NoOpCondenserConfig)
