"""Per-agent settings: the `[agent]` section and its `[agent.<AgentName>]` variants."""

from __future__ import annotations

import importlib
import threading
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from openhands.core.config.condenser_config import (
    CondenserConfig,
    ConversationWindowCondenserConfig,
)
from openhands.core.config.extended_config import ExtendedConfig
from openhands.core.config.model_routing_config import ModelRoutingConfig
from openhands.core.logger import openhands_logger

DEFAULT_AGENT_SECTION = "agent"
DEFAULT_SYSTEM_PROMPT = "system_prompt.j2"
LONG_HORIZON_SYSTEM_PROMPT = "system_prompt_long_horizon.j2"


class AgentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    cli_mode: bool = Field(default=False, description="The agent works on the host (CLI).")
    llm_config: str | None = Field(
        default=None, description="Name of the [llm.X] section this agent uses; None: [llm]."
    )
    classpath: str | None = Field(
        default=None, description="`module.path:ClassName` of a custom agent class."
    )
    system_prompt_filename: str = Field(default=DEFAULT_SYSTEM_PROMPT)
    enable_browsing: bool = Field(default=True)
    enable_llm_editor: bool = Field(default=False)
    enable_editor: bool = Field(default=True)
    enable_jupyter: bool = Field(default=True)
    enable_cmd: bool = Field(default=True)
    enable_think: bool = Field(default=True)
    enable_finish: bool = Field(default=True)
    enable_condensation_request: bool = Field(default=False)
    enable_prompt_extensions: bool = Field(default=True, description="Use microagents.")
    enable_mcp: bool = Field(default=True)
    disabled_microagents: list[str] = Field(default_factory=list)
    enable_history_truncation: bool = Field(
        default=True, description="Condense instead of failing when the context is full."
    )
    enable_som_visual_browsing: bool = Field(default=True)
    enable_plan_mode: bool = Field(default=True, description="Long-horizon prompt and tracker.")
    condenser: CondenserConfig = Field(default_factory=ConversationWindowCondenserConfig)
    model_routing: ModelRoutingConfig = Field(default_factory=ModelRoutingConfig)
    extended: ExtendedConfig = Field(default_factory=ExtendedConfig)
    runtime: str | None = Field(default=None, description="Set from the app config on creation.")

    @property
    def resolved_system_prompt_filename(self) -> str:
        """Plan mode switches the default prompt to its long-horizon variant."""
        if self.enable_plan_mode and self.system_prompt_filename == DEFAULT_SYSTEM_PROMPT:
            return LONG_HORIZON_SYSTEM_PROMPT
        return self.system_prompt_filename

    @classmethod
    def from_toml_section(cls, data: dict[str, Any]) -> dict[str, AgentConfig]:
        """Build the base config (key `agent`) and every `[agent.<Name>]` merged over it.

        The base is made of the scalar keys (and tables named like a field, e.g.
        `extended`); an invalid base falls back to the defaults. Each other sub-table is
        validated with the config model of that agent (see `agent_config_model`); invalid
        ones are skipped.
        """
        base_data: dict[str, Any] = {}
        named: dict[str, dict[str, Any]] = {}
        for key, value in data.items():
            if isinstance(value, dict) and key not in cls.model_fields:
                named[key] = value
            else:
                base_data[key] = value
        try:
            base = cls.model_validate(base_data)
        except ValidationError as exc:
            openhands_logger.warning("Invalid base agent configuration: %s. Using defaults.", exc)
            base = cls()
            base_data = {}
        configs: dict[str, AgentConfig] = {DEFAULT_AGENT_SECTION: base}
        for name, overrides in named.items():
            merged = {**base_data, **overrides}
            try:
                model = agent_config_model(name, merged.get("classpath"))
                configs[name] = model.model_validate(merged)
            except (ValidationError, ImportError, AttributeError, ValueError) as exc:
                openhands_logger.warning("Skipping invalid [agent.%s] section: %s", name, exc)
        return configs


# --- agent-specific config models -------------------------------------------------------
# Agent classes live above this package, so they announce their config model here
# (`register_agent_config_model`) instead of being imported.

_agent_config_models: dict[str, type[AgentConfig]] = {}
_models_lock = threading.Lock()


def register_agent_config_model(agent_name: str, model: type[AgentConfig]) -> None:
    with _models_lock:
        _agent_config_models[agent_name] = model


def load_class(classpath: str) -> type:
    """Import `package.module:ClassName` (or `package.module.ClassName`)."""
    module_name, sep, class_name = classpath.partition(":")
    if not sep:
        module_name, _, class_name = classpath.rpartition(".")
    if not module_name or not class_name:
        raise ValueError(f"Invalid classpath {classpath!r}; expected 'module.path:ClassName'")
    cls = getattr(importlib.import_module(module_name), class_name)
    if not isinstance(cls, type):
        raise ValueError(f"{classpath!r} is not a class")
    return cls


def agent_config_model(agent_name: str, classpath: str | None = None) -> type[AgentConfig]:
    """The config model for an agent: from its `classpath`, its registration, or AgentConfig."""
    if classpath:
        model = getattr(load_class(classpath), "config_model", AgentConfig)
        if isinstance(model, type) and issubclass(model, AgentConfig):
            return model
        return AgentConfig
    with _models_lock:
        return _agent_config_models.get(agent_name, AgentConfig)
