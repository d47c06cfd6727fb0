"""Configuration: models for every config.toml section, and their loading.

Modules: `openhands_config` (the root model), one `<section>_config` module per section,
`toml_loader` and `env_loader` (the two sources), `utils` (load + finalize + CLI flags),
`arg_utils` (the argument parser), `config_utils` (shared helpers).
"""

from openhands.core.config.agent_config import (
    AgentConfig,
    agent_config_model,
    load_class,
    register_agent_config_model,
)
from openhands.core.config.arg_utils import (
    get_cli_parser,
    get_evaluation_parser,
    get_headless_parser,
    get_parser,
    parse_arguments,
)
from openhands.core.config.cli_config import CLIConfig
from openhands.core.config.condenser_config import (
    AmortizedForgettingCondenserConfig,
    BrowserOutputCondenserConfig,
    CondenserConfig,
    CondenserPipelineConfig,
    ConversationWindowCondenserConfig,
    LLMAttentionCondenserConfig,
    LLMSummarizingCondenserConfig,
    NoOpCondenserConfig,
    ObservationMaskingCondenserConfig,
    RecentEventsCondenserConfig,
    StructuredSummaryCondenserConfig,
    condenser_config_from_toml_section,
    create_condenser_config,
)
from openhands.core.config.config_utils import (
    EXPOSE_SECRETS,
    OH_DEFAULT_AGENT,
    OH_MAX_ITERATIONS,
    get_field_info,
    model_defaults_to_dict,
    reveal,
)
from openhands.core.config.env_loader import load_from_env
from openhands.core.config.extended_config import ExtendedConfig
from openhands.core.config.kubernetes_config import KubernetesConfig
from openhands.core.config.llm_config import LLMConfig
from openhands.core.config.mcp_config import (
    MCPConfig,
    MCPSHTTPServerConfig,
    MCPSSEServerConfig,
    MCPStdioServerConfig,
    OpenHandsMCPConfig,
    OpenHandsMCPConfigImpl,
)
from openhands.core.config.model_routing_config import ModelRoutingConfig
from openhands.core.config.openhands_config import AppConfig, OpenHandsConfig
from openhands.core.config.sandbox_config import SandboxConfig
from openhands.core.config.security_config import SecurityConfig
from openhands.core.config.toml_loader import (
    get_agent_config_arg,
    get_condenser_config_arg,
    get_llm_config_arg,
    get_llms_for_routing_config,
    get_model_routing_config_arg,
    load_from_toml,
)
from openhands.core.config.utils import (
    finalize_config,
    load_openhands_config,
    setup_config_from_args,
)

__all__ = [
    "EXPOSE_SECRETS",
    "OH_DEFAULT_AGENT",
    "OH_MAX_ITERATIONS",
    "AgentConfig",
    "AmortizedForgettingCondenserConfig",
    "AppConfig",
    "BrowserOutputCondenserConfig",
    "CLIConfig",
    "CondenserConfig",
    "CondenserPipelineConfig",
    "ConversationWindowCondenserConfig",
    "ExtendedConfig",
    "KubernetesConfig",
    "LLMAttentionCondenserConfig",
    "LLMConfig",
    "LLMSummarizingCondenserConfig",
    "MCPConfig",
    "MCPSHTTPServerConfig",
    "MCPSSEServerConfig",
    "MCPStdioServerConfig",
    "ModelRoutingConfig",
    "NoOpCondenserConfig",
    "ObservationMaskingCondenserConfig",
    "OpenHandsConfig",
    "OpenHandsMCPConfig",
    "OpenHandsMCPConfigImpl",
    "RecentEventsCondenserConfig",
    "SandboxConfig",
    "SecurityConfig",
    "StructuredSummaryCondenserConfig",
    "agent_config_model",
    "condenser_config_from_toml_section",
    "create_condenser_config",
    "finalize_config",
    "get_agent_config_arg",
    "get_cli_parser",
    "get_condenser_config_arg",
    "get_evaluation_parser",
    "get_field_info",
    "get_headless_parser",
    "get_llm_config_arg",
    "get_llms_for_routing_config",
    "get_model_routing_config_arg",
    "get_parser",
    "load_class",
    "load_from_env",
    "load_from_toml",
    "load_openhands_config",
    "model_defaults_to_dict",
    "parse_arguments",
    "register_agent_config_model",
    "reveal",
    "setup_config_from_args",
]
