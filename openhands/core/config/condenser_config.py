"""Condenser settings: one model per `[condenser] type`, and the factory that reads the section."""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from openhands.core.config.llm_config import DEFAULT_LLM_SECTION, LLMConfig
from openhands.core.logger import openhands_logger

DEFAULT_CONDENSER_SECTION = "condenser"

_CONFIG = ConfigDict(extra="forbid", validate_assignment=True)


class NoOpCondenserConfig(BaseModel):
    """Returns the view unchanged."""

    model_config = _CONFIG
    type: Literal["noop"] = "noop"


class ObservationMaskingCondenserConfig(BaseModel):
    """Masks observations that fall outside the attention window."""

    model_config = _CONFIG
    type: Literal["observation_masking"] = "observation_masking"
    attention_window: int = Field(default=100, ge=1, description="Recent events left unmasked.")


class BrowserOutputCondenserConfig(BaseModel):
    """Masks all but the most recent browser outputs."""

    model_config = _CONFIG
    type: Literal["browser_output_masking"] = "browser_output_masking"
    attention_window: int = Field(default=1, ge=1, description="Browser outputs left unmasked.")


class RecentEventsCondenserConfig(BaseModel):
    """Keeps the first events and the most recent ones."""

    model_config = _CONFIG
    type: Literal["recent"] = "recent"
    keep_first: int = Field(default=1, ge=0, description="Events always kept from the start.")
    max_events: int = Field(default=100, ge=1, description="Most events kept in the view.")


class AmortizedForgettingCondenserConfig(BaseModel):
    """Forgets the older half of the view once it grows past max_size."""

    model_config = _CONFIG
    type: Literal["amortized"] = "amortized"
    max_size: int = Field(default=100, ge=2, description="View size that triggers forgetting.")
    keep_first: int = Field(default=1, ge=0, description="Events always kept from the start.")


class LLMSummarizingCondenserConfig(BaseModel):
    """Replaces forgotten events with an LLM-written summary."""

    model_config = _CONFIG
    type: Literal["llm"] = "llm"
    llm_config: LLMConfig = Field(description="The LLM that writes the summaries.")
    keep_first: int = Field(default=1, ge=0, description="Events always kept from the start.")
    max_size: int = Field(default=100, ge=2, description="View size that triggers condensation.")
    max_event_length: int = Field(
        default=10_000, ge=0, description="Characters of each event shown to the summarizer."
    )


class StructuredSummaryCondenserConfig(BaseModel):
    """Like `llm`, but the summary is filled in through a forced function call."""

    model_config = _CONFIG
    type: Literal["structured"] = "structured"
    llm_config: LLMConfig = Field(description="The LLM that writes the summaries.")
    keep_first: int = Field(default=1, ge=0, description="Events always kept from the start.")
    max_size: int = Field(default=100, ge=2, description="View size that triggers condensation.")
    max_event_length: int = Field(
        default=10_000, ge=0, description="Characters of each event shown to the summarizer."
    )


class LLMAttentionCondenserConfig(BaseModel):
    """Asks an LLM which events matter most and keeps those."""

    model_config = _CONFIG
    type: Literal["llm_attention"] = "llm_attention"
    llm_config: LLMConfig = Field(description="The LLM that ranks the events.")
    max_size: int = Field(default=100, ge=2, description="View size that triggers condensation.")
    keep_first: int = Field(default=1, ge=0, description="Events always kept from the start.")


class ConversationWindowCondenserConfig(BaseModel):
    """On a condensation request, keeps the essential events and the recent half."""

    model_config = _CONFIG
    type: Literal["conversation_window"] = "conversation_window"


class CondenserPipelineConfig(BaseModel):
    """Runs several condensers in order."""

    model_config = _CONFIG
    type: Literal["pipeline"] = "pipeline"
    condensers: list[CondenserConfig] = Field(
        default_factory=list, description="The condensers, in the order they run."
    )


AnyCondenserConfig = (
    NoOpCondenserConfig
    | ObservationMaskingCondenserConfig
    | BrowserOutputCondenserConfig
    | RecentEventsCondenserConfig
    | AmortizedForgettingCondenserConfig
    | LLMSummarizingCondenserConfig
    | StructuredSummaryCondenserConfig
    | LLMAttentionCondenserConfig
    | ConversationWindowCondenserConfig
    | CondenserPipelineConfig
)
# Field type for "any condenser config": validated by its `type` key.
CondenserConfig = Annotated[AnyCondenserConfig, Field(discriminator="type")]

CondenserPipelineConfig.model_rebuild()

CONDENSER_CONFIG_TYPES: dict[str, type[BaseModel]] = {
    model.model_fields["type"].default: model
    for model in (
        NoOpCondenserConfig,
        ObservationMaskingCondenserConfig,
        BrowserOutputCondenserConfig,
        RecentEventsCondenserConfig,
        AmortizedForgettingCondenserConfig,
        LLMSummarizingCondenserConfig,
        StructuredSummaryCondenserConfig,
        LLMAttentionCondenserConfig,
        ConversationWindowCondenserConfig,
        CondenserPipelineConfig,
    )
}

_condenser_adapter: TypeAdapter[Any] = TypeAdapter(CondenserConfig)


def create_condenser_config(condenser_type: str, data: dict[str, Any]) -> AnyCondenserConfig:
    """Validate `data` as the config of `condenser_type`. Unknown type → ValueError."""
    model = CONDENSER_CONFIG_TYPES.get(condenser_type)
    if model is None:
        known = ", ".join(sorted(CONDENSER_CONFIG_TYPES))
        raise ValueError(f"Unknown condenser type: {condenser_type!r} (known: {known})")
    return cast(AnyCondenserConfig, model.model_validate({**data, "type": condenser_type}))


def resolve_llm_config_names(
    data: dict[str, Any], llm_configs: dict[str, LLMConfig] | None
) -> dict[str, Any]:
    """Replace a string `llm_config` (the name of an `[llm.X]` section) by that config.

    A name that is not found raises ValueError: the caller then condenses nothing (NoOp), as
    the reference does, rather than summarizing with a model nobody chose. `llm` names the
    default `[llm]` section. Pipeline members are resolved as well.
    """
    configs = llm_configs or {}
    resolved = dict(data)
    name = resolved.get("llm_config")
    if isinstance(name, str):
        if name in configs:
            resolved["llm_config"] = configs[name]
        elif name == DEFAULT_LLM_SECTION:
            resolved["llm_config"] = LLMConfig()
        else:
            raise ValueError(f"llm_config {name!r} names a missing [llm.{name}] section")
    members = resolved.get("condensers")
    if isinstance(members, list):
        resolved["condensers"] = [
            resolve_llm_config_names(m, configs) if isinstance(m, dict) else m for m in members
        ]
    return resolved


def condenser_config_from_toml_section(
    data: dict[str, Any], llm_configs: dict[str, LLMConfig] | None = None
) -> dict[str, AnyCondenserConfig]:
    """Build `{"condenser": config}` from a `[condenser]` table.

    `type` defaults to `noop`. Sub-tables that are not fields (named `[condenser.X]`
    sections) are ignored here. Any invalid section gives a NoOp condenser and a warning.
    """
    section = {
        key: value
        for key, value in data.items()
        if not isinstance(value, dict) or key == "llm_config"
    }
    condenser_type = section.pop("type", "noop")
    config: AnyCondenserConfig
    try:
        config = create_condenser_config(
            condenser_type, resolve_llm_config_names(section, llm_configs)
        )
    except (ValueError, ValidationError) as exc:
        openhands_logger.warning("Invalid [condenser] section, using noop: %s", exc)
        config = NoOpCondenserConfig()
    return {DEFAULT_CONDENSER_SECTION: config}


def validate_condenser_config(data: Any) -> AnyCondenserConfig:
    """Validate a dict (with `type`) or an existing model as any condenser config."""
    return cast(AnyCondenserConfig, _condenser_adapter.validate_python(data))
