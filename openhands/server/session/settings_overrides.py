"""The per-conversation config: the app config with the user's settings applied (§8.2 steps 2–3)."""

from __future__ import annotations

from openhands.core.config import (
    BrowserOutputCondenserConfig,
    CondenserPipelineConfig,
    ConversationWindowCondenserConfig,
    LLMSummarizingCondenserConfig,
    MCPConfig,
    OpenHandsConfig,
)
from openhands.core.config.condenser_config import AnyCondenserConfig
from openhands.core.config.llm_config import LLMConfig
from openhands.core.config.mcp_config import default_shttp_server
from openhands.server.mcp_endpoint import conversation_mcp_key, key_secret
from openhands.storage.data_models.settings import Settings

DEFAULT_CONDENSER_MAX_SIZE = 120


def apply_settings(
    config: OpenHandsConfig, settings: Settings, conversation_id: str | None = None
) -> OpenHandsConfig:
    """A deep copy of ``config`` with the user's choices layered on top. Pure.

    With ``conversation_id``, the server's own MCP endpoint is listed with that
    conversation's key (the endpoint refuses calls without one)."""
    mcp_key = (
        conversation_mcp_key(key_secret(config), conversation_id)
        if conversation_id is not None
        else None
    )
    config = config.model_copy(deep=True)
    agent_name = settings.agent or config.default_agent
    config.default_agent = agent_name

    configured_llm = config.get_llm_config_from_agent(agent_name)
    llm_config = configured_llm.model_copy(deep=True)
    if settings.llm_model:
        llm_config.model = settings.llm_model
    if settings.llm_api_key is not None and settings.llm_api_key.get_secret_value():
        llm_config.api_key = settings.llm_api_key
    if settings.llm_base_url:
        llm_config.base_url = settings.llm_base_url
    agent_config = config.get_agent_config(agent_name).model_copy(deep=True)
    llm_name = agent_config.llm_config or "llm"
    config.set_llm_config(llm_config, llm_name)
    # A condenser that config.toml gave the agent's own model (the default one, when the file
    # has no [condenser]) follows the user's model too, as in 0.59, where it shares the LLM
    # config object the session edits. Otherwise it would call the server's unset model.
    agent_config.condenser = _with_llm(agent_config.condenser, configured_llm, llm_config)

    if settings.confirmation_mode is not None:
        config.security.confirmation_mode = settings.confirmation_mode
    if settings.security_analyzer:
        config.security.security_analyzer = settings.security_analyzer
    if settings.sandbox_base_container_image:
        config.sandbox.base_container_image = settings.sandbox_base_container_image
    if settings.sandbox_runtime_container_image:
        config.sandbox.runtime_container_image = settings.sandbox_runtime_container_image
    if settings.git_user_name:
        config.git_user_name = settings.git_user_name
    if settings.git_user_email:
        config.git_user_email = settings.git_user_email
    if settings.max_iterations:
        config.max_iterations = settings.max_iterations
    if settings.max_budget_per_task is not None:
        config.max_budget_per_task = settings.max_budget_per_task
    if settings.search_api_key is not None and settings.search_api_key.get_secret_value():
        config.search_api_key = settings.search_api_key
    if settings.sandbox_api_key is not None and settings.sandbox_api_key.get_secret_value():
        config.sandbox.api_key = settings.sandbox_api_key
    if settings.mcp_config is not None:
        config.mcp = _merge_mcp(config.mcp, settings.mcp_config)
    config.mcp = _with_server_endpoint(config.mcp, config.mcp_host, mcp_key)

    agent_config.runtime = config.runtime
    if settings.enable_default_condenser:
        max_size = settings.condenser_max_size or DEFAULT_CONDENSER_MAX_SIZE
        agent_config.condenser = CondenserPipelineConfig(
            condensers=[
                ConversationWindowCondenserConfig(),
                BrowserOutputCondenserConfig(attention_window=2),
                LLMSummarizingCondenserConfig(
                    llm_config=llm_config, keep_first=4, max_size=max_size
                ),
            ]
        )
    config.set_agent_config(agent_config, agent_name)
    return config


def _with_llm(
    condenser: AnyCondenserConfig, before: LLMConfig, after: LLMConfig
) -> AnyCondenserConfig:
    """``condenser`` with every LLM config equal to ``before`` replaced by ``after``."""
    if isinstance(condenser, CondenserPipelineConfig):
        parts = [_with_llm(part, before, after) for part in condenser.condensers]
        return condenser.model_copy(update={"condensers": parts})
    if getattr(condenser, "llm_config", None) == before:
        return condenser.model_copy(update={"llm_config": after})
    return condenser


def _merge_mcp(base: MCPConfig, extra: MCPConfig) -> MCPConfig:
    """``base``'s servers, then those of ``extra`` it does not list yet (the user's
    settings already carry config.toml's servers, see ``UserAuth.get_user_settings``)."""
    sse_urls = {server.url for server in base.sse_servers}
    shttp_urls = {server.url for server in base.shttp_servers}
    stdio_names = {server.name for server in base.stdio_servers}
    return MCPConfig(
        sse_servers=[
            *base.sse_servers,
            *(s for s in extra.sse_servers if s.url not in sse_urls),
        ],
        stdio_servers=[
            *base.stdio_servers,
            *(s for s in extra.stdio_servers if s.name not in stdio_names),
        ],
        shttp_servers=[
            *base.shttp_servers,
            *(s for s in extra.shttp_servers if s.url not in shttp_urls),
        ],
    )


def _with_server_endpoint(mcp: MCPConfig, mcp_host: str, api_key: str | None) -> MCPConfig:
    """Adds the server's own `/mcp/mcp` (the PR tools, §8.2 step 2) unless already listed;
    either way it carries the conversation's key. When nothing listens there, the MCP
    client skips it: a refused connection is noticed in well under a second (a host that
    drops packets would cost the client's list timeout)."""
    own = default_shttp_server(mcp_host, api_key)
    if any(server.url == own.url for server in mcp.shttp_servers):
        servers = [
            server.model_copy(update={"api_key": api_key})
            if api_key is not None and server.url == own.url
            else server
            for server in mcp.shttp_servers
        ]
        return mcp.model_copy(update={"shttp_servers": servers})
    return mcp.model_copy(update={"shttp_servers": [*mcp.shttp_servers, own]})
