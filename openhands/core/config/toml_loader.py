"""Apply a config.toml to an OpenHandsConfig, section by section (spec agent.md §9.2)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from openhands.core.config.agent_config import AgentConfig
from openhands.core.config.cli_config import CLIConfig
from openhands.core.config.condenser_config import (
    AnyCondenserConfig,
    LLMSummarizingCondenserConfig,
    condenser_config_from_toml_section,
    create_condenser_config,
)
from openhands.core.config.config_utils import DEFAULT_CONFIG_FILE
from openhands.core.config.developer_files import hidden_from_tests
from openhands.core.config.extended_config import ExtendedConfig
from openhands.core.config.kubernetes_config import KubernetesConfig
from openhands.core.config.llm_config import LLMConfig
from openhands.core.config.mcp_config import MCPConfig
from openhands.core.config.model_routing_config import ModelRoutingConfig
from openhands.core.config.openhands_config import OpenHandsConfig
from openhands.core.config.sandbox_config import SandboxConfig
from openhands.core.config.security_config import SecurityConfig
from openhands.core.exceptions import ConfigurationError
from openhands.core.logger import openhands_logger

ModelT = TypeVar("ModelT", bound=BaseModel)

# Sections whose content is a model of its own; the field names exclude sub-sections.
_CORE_SUBSECTIONS = frozenset(
    {"llms", "agents", "sandbox", "security", "mcp", "kubernetes", "cli", "extended"}
)


def read_toml(toml_file: str) -> dict[str, Any] | None:
    """The parsed file; None when it is missing (silently) or unreadable (with a warning)."""
    if hidden_from_tests(toml_file):  # OPENHANDS_TEST: a developer's own file is not read
        return None
    try:
        with open(toml_file, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        openhands_logger.warning("Cannot read config file %s: %s", toml_file, exc)
        return None


def check_section_keys(section_name: str, model: type[BaseModel], data: Any) -> None:
    """A ConfigurationError unless `data` is a table whose keys are all fields of `model`."""
    if not isinstance(data, dict):
        raise ConfigurationError(
            f"Error in [{section_name}] section in config.toml: it must be a table"
        )
    unknown = sorted(set(data) - set(model.model_fields))
    if unknown:
        raise ConfigurationError(
            f"Error in [{section_name}] section in config.toml: unknown key(s) {', '.join(unknown)}"
        )


def validate_section(section_name: str, model: type[ModelT], data: Any) -> ModelT:
    """Validate a whole section; any problem is a ValueError naming the section and keys."""
    check_section_keys(section_name, model, data)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigurationError(
            f"Error in [{section_name}] section in config.toml: {exc}"
        ) from exc


def _load_core(cfg: OpenHandsConfig, data: dict[str, Any]) -> None:
    core = data.get("core")
    if core is None:
        # Normal: a file may hold only [llm] or [sandbox] (the terminal app writes such one).
        openhands_logger.debug("No [core] section in config.toml; using the defaults")
        return
    for key, value in core.items():
        if key not in OpenHandsConfig.model_fields or key in _CORE_SUBSECTIONS:
            openhands_logger.warning("Unknown key %r in [core] of config.toml; ignored", key)
            continue
        try:
            setattr(cfg, key, value)
        except ValidationError as exc:
            raise ConfigurationError(
                f"Invalid value for [core] {key} in config.toml: {exc}"
            ) from exc


def _load_agents(cfg: OpenHandsConfig, section: dict[str, Any]) -> None:
    for name, agent_config in AgentConfig.from_toml_section(section).items():
        cfg.set_agent_config(agent_config, name)


def _load_llms(cfg: OpenHandsConfig, section: dict[str, Any]) -> None:
    for name, llm_config in LLMConfig.from_toml_section(section).items():
        cfg.set_llm_config(llm_config, name)


def _load_model_routing(cfg: OpenHandsConfig, section: dict[str, Any]) -> None:
    try:
        routing = ModelRoutingConfig.model_validate(section)
    except ValidationError as exc:
        openhands_logger.warning("Invalid [model_routing] section; ignored: %s", exc)
        return
    routing.llms_for_routing = _routing_llms(cfg.llms)
    cfg.get_agent_config().model_routing = routing


def _routing_llms(llms: dict[str, LLMConfig]) -> dict[str, LLMConfig]:
    return {name: llm for name, llm in llms.items() if llm.for_routing}


def _load_condenser(cfg: OpenHandsConfig, data: dict[str, Any]) -> None:
    if "condenser" in data:
        section = condenser_config_from_toml_section(data["condenser"], cfg.llms)
        cfg.get_agent_config().condenser = section["condenser"]
    elif cfg.enable_default_condenser:
        # A config file without [condenser]: the default agent summarizes with the [llm] model.
        cfg.get_agent_config().condenser = LLMSummarizingCondenserConfig(
            llm_config=cfg.get_llm_config()
        )


def _load_mcp(cfg: OpenHandsConfig, section: dict[str, Any]) -> None:
    check_section_keys("mcp", MCPConfig, section)
    try:
        cfg.mcp = MCPConfig.from_toml_section(section)["mcp"]
    except ValueError as exc:
        raise ConfigurationError(f"Invalid [mcp] section in config.toml: {exc}") from exc


def _whole(
    attribute: str, model: type[BaseModel]
) -> Callable[[OpenHandsConfig, dict[str, Any]], None]:
    def load(cfg: OpenHandsConfig, section: dict[str, Any]) -> None:
        setattr(cfg, attribute, validate_section(attribute, model, section))

    return load


# Processing order matters: [core] first (enable_default_condenser), [llm] before
# [model_routing] and [condenser], which refer to the LLM configs.
_SECTION_LOADERS: dict[str, Callable[[OpenHandsConfig, dict[str, Any]], None]] = {
    "agent": _load_agents,
    "llm": _load_llms,
    "security": _whole("security", SecurityConfig),
    "model_routing": _load_model_routing,
    "sandbox": _whole("sandbox", SandboxConfig),
    "mcp": _load_mcp,
    "kubernetes": _whole("kubernetes", KubernetesConfig),
    "cli": _whole("cli", CLIConfig),
}
KNOWN_SECTIONS = frozenset({"core", "condenser", "extended", *_SECTION_LOADERS})


def load_from_toml(cfg: OpenHandsConfig, toml_file: str = DEFAULT_CONFIG_FILE) -> None:
    """Apply `toml_file` to `cfg`. A missing file changes nothing."""
    data = read_toml(toml_file)
    if data is None:
        return
    _load_core(cfg, data)
    for name, loader in _SECTION_LOADERS.items():
        if name in data:
            loader(cfg, data[name])
    _load_condenser(cfg, data)
    if "extended" in data:
        if not isinstance(data["extended"], dict):
            raise ConfigurationError("[extended] in config.toml must be a table")
        cfg.extended = ExtendedConfig.from_dict(data["extended"])
    for name in sorted(set(data) - KNOWN_SECTIONS):
        openhands_logger.warning("Unknown section [%s] in %s; ignored", name, toml_file)


# --- look up one named section ------------------------------------------------------------


def _named_section(toml_file: str, kind: str, name: str) -> dict[str, Any] | None:
    name = name.strip().strip("[]")
    if name.startswith(f"{kind}."):
        name = name[len(kind) + 1 :]
    data = read_toml(toml_file)
    if data is None:
        return None
    section = data.get(kind, {}).get(name)
    if not isinstance(section, dict):
        openhands_logger.debug("No [%s.%s] section in %s", kind, name, toml_file)
        return None
    return section


def get_llm_config_arg(
    llm_config_arg: str, toml_file: str = DEFAULT_CONFIG_FILE
) -> LLMConfig | None:
    """`[llm.<name>]` of `toml_file` on its own (not merged with `[llm]`), or None."""
    section = _named_section(toml_file, "llm", llm_config_arg)
    if section is None:
        return None
    try:
        return LLMConfig.model_validate(section)
    except ValidationError as exc:
        openhands_logger.error("Invalid [llm.%s] in %s: %s", llm_config_arg, toml_file, exc)
        return None


def get_agent_config_arg(
    agent_config_arg: str, toml_file: str = DEFAULT_CONFIG_FILE
) -> AgentConfig | None:
    """`[agent.<name>]` of `toml_file` on its own (not merged with `[agent]`), or None."""
    section = _named_section(toml_file, "agent", agent_config_arg)
    if section is None:
        return None
    try:
        return AgentConfig.model_validate(section)
    except ValidationError as exc:
        openhands_logger.error("Invalid [agent.%s] in %s: %s", agent_config_arg, toml_file, exc)
        return None


def get_condenser_config_arg(
    condenser_config_arg: str, toml_file: str = DEFAULT_CONFIG_FILE
) -> AnyCondenserConfig | None:
    """`[condenser.<name>]` of `toml_file`, or None.

    It needs a `type`. A string `llm_config` names an `[llm.X]` section of the same file,
    which must exist.
    """
    section = _named_section(toml_file, "condenser", condenser_config_arg)
    if section is None:
        return None
    data = dict(section)
    condenser_type = data.pop("type", None)
    if not isinstance(condenser_type, str):
        openhands_logger.error("[condenser.%s] has no 'type'", condenser_config_arg)
        return None
    llm_name = data.get("llm_config")
    if isinstance(llm_name, str):
        llm_config = get_llm_config_arg(llm_name, toml_file)
        if llm_config is None:
            openhands_logger.error(
                "[condenser.%s] refers to a missing [llm.%s]", condenser_config_arg, llm_name
            )
            return None
        data["llm_config"] = llm_config
    try:
        return create_condenser_config(condenser_type, data)
    except (ValueError, ValidationError) as exc:
        openhands_logger.error("Invalid [condenser.%s]: %s", condenser_config_arg, exc)
        return None


def get_llms_for_routing_config(toml_file: str = DEFAULT_CONFIG_FILE) -> dict[str, LLMConfig]:
    """The `[llm.X]` configs of `toml_file` that have `for_routing = true`, by name."""
    data = read_toml(toml_file)
    section = data.get("llm") if data else None
    if not isinstance(section, dict):
        return {}
    return _routing_llms(LLMConfig.from_toml_section(section))


def get_model_routing_config_arg(toml_file: str = DEFAULT_CONFIG_FILE) -> ModelRoutingConfig:
    """`[model_routing]` of `toml_file` with its routing LLMs; the default when it is
    missing or invalid."""
    data = read_toml(toml_file)
    section = data.get("model_routing") if data else None
    if not isinstance(section, dict):
        return ModelRoutingConfig()
    try:
        routing = ModelRoutingConfig.model_validate(section)
    except ValidationError as exc:
        openhands_logger.error("Invalid [model_routing] in %s: %s", toml_file, exc)
        return ModelRoutingConfig()
    routing.llms_for_routing = get_llms_for_routing_config(toml_file)
    return routing
