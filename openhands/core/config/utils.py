"""Build the final config: defaults → config.toml → environment → finalize (→ CLI flags)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from dotenv import find_dotenv, load_dotenv
from pydantic import BaseModel, SecretStr

from openhands.core.config.arg_utils import parse_arguments
from openhands.core.config.config_utils import DEFAULT_CONFIG_FILE
from openhands.core.config.developer_files import hidden_from_tests
from openhands.core.config.env_loader import load_from_env
from openhands.core.config.openhands_config import OpenHandsConfig
from openhands.core.config.toml_loader import (
    get_agent_config_arg,
    get_condenser_config_arg,
    get_llm_config_arg,
    get_llms_for_routing_config,
    get_model_routing_config_arg,
    load_from_toml,
)
from openhands.core.exceptions import ConfigurationError
from openhands.core.logger import register_secret, set_log_level

# The reference defines the loaders and the named-section lookups in this module, and
# evaluation harnesses import them from here (``get_condenser_config_arg`` above all).
__all__ = [
    "USER_CONFIG_FILE",
    "WORKSPACE_IN_SANDBOX",
    "finalize_config",
    "get_agent_config_arg",
    "get_condenser_config_arg",
    "get_llm_config_arg",
    "get_llms_for_routing_config",
    "get_model_routing_config_arg",
    "load_from_env",
    "load_from_toml",
    "load_openhands_config",
    "parse_arguments",
    "parse_volumes",
    "register_config_secrets",
    "setup_config_from_args",
]

USER_CONFIG_FILE = "~/.openhands/config.toml"
WORKSPACE_IN_SANDBOX = "/workspace"


def load_openhands_config(
    set_logging_levels: bool = True, config_file: str = DEFAULT_CONFIG_FILE
) -> OpenHandsConfig:
    """The app config from defaults, `config_file`, `.env` + environment, then finalized."""
    dotenv_file = find_dotenv(usecwd=True)
    if dotenv_file and not hidden_from_tests(dotenv_file):  # OPENHANDS_TEST: not the developer's
        load_dotenv(dotenv_file)
    config = OpenHandsConfig()
    load_from_toml(config, config_file)
    load_from_env(config, os.environ)
    finalize_config(config)
    register_config_secrets(config)
    if set_logging_levels and config.debug:
        set_log_level("DEBUG")
    return config


# --- finalize ---------------------------------------------------------------------------


def parse_volumes(volumes: str) -> list[tuple[str, str, str | None]]:
    """`host:container[:mode]` entries, comma-separated → (abs host path, container, mode)."""
    mounts: list[tuple[str, str, str | None]] = []
    for entry in (item.strip() for item in volumes.split(",")):
        if not entry:
            continue
        parts = entry.split(":")
        if len(parts) not in (2, 3):
            raise ConfigurationError(
                f"Invalid mount {entry!r} in sandbox.volumes; "
                "expected 'host_path:container_path[:mode]'"
            )
        mode = parts[2] if len(parts) == 3 else None
        mounts.append((os.path.abspath(os.path.expanduser(parts[0])), parts[1], mode))
    return mounts


def _apply_workspace_mounts(cfg: OpenHandsConfig) -> None:
    if cfg.sandbox.volumes:
        for host_path, container_path, _mode in parse_volumes(cfg.sandbox.volumes):
            if container_path == WORKSPACE_IN_SANDBOX:
                cfg.workspace_base = host_path
                cfg.workspace_mount_path = host_path
                cfg.workspace_mount_path_in_sandbox = container_path
    elif cfg.workspace_base is not None:
        # Deprecated form: workspace_base alone names the host directory to mount.
        cfg.workspace_base = os.path.abspath(cfg.workspace_base)
        if cfg.workspace_mount_path is None:
            cfg.workspace_mount_path = cfg.workspace_base
    if cfg.workspace_mount_rewrite and cfg.workspace_mount_path:
        source, _, target = cfg.workspace_mount_rewrite.partition(":")
        cfg.workspace_mount_path = cfg.workspace_mount_path.replace(source, target)


def finalize_config(cfg: OpenHandsConfig) -> None:
    """Derive what depends on several settings; run once, after TOML and env."""
    _apply_workspace_mounts(cfg)
    if cfg.cache_dir:
        Path(cfg.cache_dir).mkdir(parents=True, exist_ok=True)
    cfg.get_agent_config()  # the default agent always exists from here on
    if cfg.runtime == "cli":
        # The CLI runtime works on the host: no Jupyter kernel and no browser.
        for agent_config in cfg.agents.values():
            agent_config.enable_jupyter = False
            agent_config.enable_browsing = False
    elif not cfg.enable_browser:
        # A sandbox without a browser answers every browse with an error: do not offer the
        # model a tool that cannot work.
        for agent_config in cfg.agents.values():
            agent_config.enable_browsing = False


def register_config_secrets(value: Any) -> None:
    """Mask every secret found in the config (SecretStr fields, MCP api keys) in the logs."""
    if isinstance(value, SecretStr):
        register_secret(value)
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            field_value = getattr(value, name)
            if name == "api_key" and isinstance(field_value, str):
                register_secret(field_value)
            else:
                register_config_secrets(field_value)
    elif isinstance(value, dict):
        for item in value.values():
            register_config_secrets(item)
    elif isinstance(value, list | tuple):
        for item in value:
            register_config_secrets(item)


# --- CLI flags ----------------------------------------------------------------------------


def setup_config_from_args(args: argparse.Namespace) -> OpenHandsConfig:
    """Load the config, then apply the CLI flags (they win over everything)."""
    config_file = getattr(args, "config_file", None) or DEFAULT_CONFIG_FILE
    config = load_openhands_config(config_file=config_file)

    if getattr(args, "llm_config", None):
        name = args.llm_config
        llm_config = config.llms.get(name)
        if llm_config is None:
            llm_config = get_llm_config_arg(name, config_file)
        if llm_config is None:
            llm_config = get_llm_config_arg(name, os.path.expanduser(USER_CONFIG_FILE))
        if llm_config is None:
            raise ConfigurationError(f"Cannot find LLM configuration '{name}' in any config file")
        register_config_secrets(llm_config)
        config.set_llm_config(llm_config)

    # Only values of the flag's own type are applied: a namespace built by hand (or a mock)
    # may lack a flag or hold something else there.
    agent_cls = getattr(args, "agent_cls", None)
    if isinstance(agent_cls, str) and agent_cls:
        config.default_agent = agent_cls
    max_iterations = getattr(args, "max_iterations", None)
    if isinstance(max_iterations, int):
        config.max_iterations = max_iterations
    max_budget = getattr(args, "max_budget_per_task", None)
    if isinstance(max_budget, int | float):
        config.max_budget_per_task = max_budget
    selected_repo = getattr(args, "selected_repo", None)
    if isinstance(selected_repo, str) and selected_repo:
        config.sandbox.selected_repo = selected_repo
    replay_path = getattr(args, "replay_trajectory_path", None)
    if isinstance(replay_path, str) and replay_path:
        config.replay_trajectory_path = replay_path
    return config
