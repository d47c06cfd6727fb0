"""The application config: every section of config.toml in one object."""

from __future__ import annotations

import os
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from openhands.core.config.agent_config import DEFAULT_AGENT_SECTION, AgentConfig
from openhands.core.config.cli_config import CLIConfig
from openhands.core.config.config_utils import (
    OH_DEFAULT_AGENT,
    OH_MAX_ITERATIONS,
    Secret,
    model_defaults_to_dict,
)
from openhands.core.config.extended_config import ExtendedConfig
from openhands.core.config.kubernetes_config import KubernetesConfig
from openhands.core.config.llm_config import DEFAULT_LLM_SECTION, LLMConfig
from openhands.core.config.mcp_config import MCPConfig
from openhands.core.config.sandbox_config import SandboxConfig
from openhands.core.config.security_config import SecurityConfig
from openhands.core.logger import openhands_logger


def _default_mcp_host() -> str:
    # The server reads its port from the lower-case `port` variable (spec server-api §1).
    return f"localhost:{os.environ.get('port') or 3000}"  # noqa: SIM112


class OpenHandsConfig(BaseModel):
    """Top-level settings (`[core]` keys) plus one sub-model per other section."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    llms: dict[str, LLMConfig] = Field(
        default_factory=dict, description="LLM configs by name; `llm` is the default."
    )
    agents: dict[str, AgentConfig] = Field(
        default_factory=dict, description="Agent configs by name; `agent` is the default."
    )
    default_agent: str = Field(default=OH_DEFAULT_AGENT)
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    security: SecurityConfig = Field(default_factory=SecurityConfig)
    mcp: MCPConfig = Field(default_factory=MCPConfig)
    kubernetes: KubernetesConfig = Field(default_factory=KubernetesConfig)
    cli: CLIConfig = Field(default_factory=CLIConfig)
    extended: ExtendedConfig = Field(default_factory=ExtendedConfig)

    runtime: str = Field(default="docker", description="docker, local, remote, kubernetes, cli.")
    file_store: str = Field(default="local", description="local, memory, s3 or google_cloud.")
    file_store_path: str = Field(default="~/.openhands")
    file_store_web_hook_url: str | None = Field(default=None)
    file_store_web_hook_headers: dict[str, str] | None = Field(default=None)
    file_store_web_hook_batch: bool = Field(default=False)
    enable_browser: bool = Field(default=True)
    save_trajectory_path: str | None = Field(default=None)
    save_screenshots_in_trajectory: bool = Field(default=False)
    replay_trajectory_path: str | None = Field(default=None)
    search_api_key: Secret | None = Field(
        default=None, description="A Tavily key (tvly-…) adds the Tavily MCP search server."
    )
    workspace_base: str | None = Field(default=None)
    workspace_mount_path_in_sandbox: str = Field(default="/workspace")
    workspace_mount_path: str | None = Field(default=None, description="Deprecated.")
    workspace_mount_rewrite: str | None = Field(default=None, description="Deprecated.")
    cache_dir: str = Field(default="/tmp/cache")
    run_as_openhands: bool = Field(default=True)
    max_iterations: int = Field(default=OH_MAX_ITERATIONS)
    max_budget_per_task: float | None = Field(default=None)
    init_git_in_empty_workspace: bool = Field(default=False)
    disable_color: bool = Field(default=False)
    debug: bool = Field(default=False)
    jwt_secret: Secret | None = Field(
        default=None, description="None: read or create `.jwt_secret` in the file store."
    )
    file_uploads_max_file_size_mb: int = Field(default=0, description="0: no limit.")
    file_uploads_restrict_file_types: bool = Field(default=False)
    file_uploads_allowed_extensions: list[str] = Field(default_factory=lambda: [".*"])
    cli_multiline_input: bool = Field(default=False)
    conversation_max_age_seconds: int = Field(default=864_000)
    enable_default_condenser: bool = Field(default=True)
    max_concurrent_conversations: int = Field(default=3)
    mcp_host: str = Field(default_factory=_default_mcp_host)
    git_user_name: str = Field(default="openhands")
    git_user_email: str = Field(default="openhands@all-hands.dev")

    # Per field {type, optional, default} (nested models recurse), filled by the first
    # instance; UIs and docs read it to show what can be configured.
    defaults_dict: ClassVar[dict[str, Any]] = {}

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        if not OpenHandsConfig.defaults_dict:
            OpenHandsConfig.defaults_dict = model_defaults_to_dict(self)

    # --- named LLM configs ---------------------------------------------------------

    def get_llm_config(self, name: str = DEFAULT_LLM_SECTION) -> LLMConfig:
        """The named LLM config; an unknown name falls back to (and creates) the default."""
        if name in self.llms:
            return self.llms[name]
        if name != DEFAULT_LLM_SECTION:
            openhands_logger.warning("LLM config %r not found, using the default one", name)
        if DEFAULT_LLM_SECTION not in self.llms:
            self.llms[DEFAULT_LLM_SECTION] = LLMConfig()
        return self.llms[DEFAULT_LLM_SECTION]

    def set_llm_config(self, value: LLMConfig, name: str = DEFAULT_LLM_SECTION) -> None:
        self.llms[name] = value

    # --- named agent configs -------------------------------------------------------

    def get_agent_config(self, name: str = DEFAULT_AGENT_SECTION) -> AgentConfig:
        """The named agent config; an unknown name falls back to (and creates) the default."""
        if name in self.agents:
            return self.agents[name]
        if DEFAULT_AGENT_SECTION not in self.agents:
            self.agents[DEFAULT_AGENT_SECTION] = AgentConfig()
        return self.agents[DEFAULT_AGENT_SECTION]

    def set_agent_config(self, value: AgentConfig, name: str = DEFAULT_AGENT_SECTION) -> None:
        self.agents[name] = value

    def get_agent_configs(self) -> dict[str, AgentConfig]:
        return self.agents

    def get_llm_config_from_agent(self, name: str = DEFAULT_AGENT_SECTION) -> LLMConfig:
        """The LLM config an agent uses: its `llm_config` name, else the default `llm`."""
        llm_config_name = self.get_agent_config(name).llm_config
        return self.get_llm_config(llm_config_name or DEFAULT_LLM_SECTION)

    def get_agent_to_llm_config_map(self) -> dict[str, LLMConfig]:
        return {name: self.get_llm_config_from_agent(name) for name in self.agents}


# The name used before the rename; kept for callers that still import it.
AppConfig = OpenHandsConfig
