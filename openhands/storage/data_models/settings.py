"""Settings: the user's preferences, as stored in ``settings.json`` and sent by the UI.

Every field is optional on input and unknown fields are ignored. The three API keys are
``SecretStr``: ``repr`` and ordinary JSON dumps mask them, and the settings store writes
them in clear text (``context={"expose_secrets": True}``) so they survive a restart. An
empty key is kept in memory as an empty secret (it means "clear the key" in an update)
and written as ``null``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    SerializationInfo,
    field_serializer,
    field_validator,
)

from openhands.core.config.mcp_config import MCPConfig
from openhands.core.config.utils import load_openhands_config
from openhands.storage.data_models.user_secrets import UserSecrets, secret_text

if TYPE_CHECKING:
    from openhands.core.config.openhands_config import OpenHandsConfig

MIN_CONDENSER_MAX_SIZE = 20
SECRET_MASK = "**********"
SECRET_FIELDS = ("llm_api_key", "search_api_key", "sandbox_api_key")
# Kept from the stored settings when an update leaves them null or out.
KEPT_ON_UPDATE = (
    "llm_api_key",
    "llm_model",
    "llm_base_url",
    "search_api_key",
    "user_consents_to_analytics",
)


class Settings(BaseModel):
    """User settings. Fields are in the order they are written."""

    model_config = ConfigDict(validate_assignment=True, extra="ignore")

    language: str | None = None
    agent: str | None = None
    max_iterations: int | None = None
    security_analyzer: str | None = None
    confirmation_mode: bool | None = None
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    llm_base_url: str | None = None
    remote_runtime_resource_factor: int | None = None
    secrets_store: UserSecrets = Field(
        default_factory=UserSecrets,
        frozen=True,
        description="Legacy: provider tokens once lived here. Always written empty.",
    )
    enable_default_condenser: bool = True
    enable_sound_notifications: bool = False
    enable_proactive_conversation_starters: bool = True
    enable_solvability_analysis: bool = True
    user_consents_to_analytics: bool | None = None
    sandbox_base_container_image: str | None = None
    sandbox_runtime_container_image: str | None = None
    mcp_config: MCPConfig | None = None
    search_api_key: SecretStr | None = None
    sandbox_api_key: SecretStr | None = None
    max_budget_per_task: float | None = None
    condenser_max_size: int | None = None
    email: str | None = None
    email_verified: bool | None = None
    git_user_name: str | None = None
    git_user_email: str | None = None

    @field_validator(*SECRET_FIELDS, mode="before")
    @classmethod
    def _mask_means_unknown(cls, value: Any) -> Any:
        # A masked value is never a real key (0.59 wrote sandbox_api_key masked).
        raw = value.get_secret_value() if isinstance(value, SecretStr) else value
        return None if raw == SECRET_MASK else value

    @field_validator("condenser_max_size")
    @classmethod
    def _condenser_max_size_floor(cls, value: int | None) -> int | None:
        if value is not None and value < MIN_CONDENSER_MAX_SIZE:
            raise ValueError(f"condenser_max_size must be at least {MIN_CONDENSER_MAX_SIZE}")
        return value

    @field_serializer(*SECRET_FIELDS)
    def _dump_secret(self, value: SecretStr | None, info: SerializationInfo) -> str | None:
        if value is None or not value.get_secret_value():
            return None
        return secret_text(value, info)

    @field_serializer("secrets_store")
    def _dump_legacy_secrets_store(self, value: UserSecrets) -> dict[str, Any]:
        return {"provider_tokens": {}}

    # --- construction -----------------------------------------------------------------

    @staticmethod
    def from_config(config: OpenHandsConfig | None = None) -> Settings | None:
        """Settings from the app config (default: ``load_openhands_config()``, i.e.
        ``config.toml`` and the environment); None when the config has no LLM API key."""
        if config is None:
            config = load_openhands_config()
        llm = config.get_llm_config()
        if llm.api_key is None:
            return None
        return Settings(
            language="en",
            agent=config.default_agent,
            max_iterations=config.max_iterations,
            security_analyzer=config.security.security_analyzer,
            confirmation_mode=config.security.confirmation_mode,
            llm_model=llm.model,
            llm_api_key=llm.api_key,
            llm_base_url=llm.base_url,
            remote_runtime_resource_factor=config.sandbox.remote_runtime_resource_factor,
            mcp_config=config.mcp.model_copy(deep=True),
            search_api_key=config.search_api_key,
            max_budget_per_task=config.max_budget_per_task,
        )

    # --- merges -----------------------------------------------------------------------

    def merge_update(self, stored: Settings | None) -> Settings:
        """``self`` as the new full settings, keeping some stored values it leaves out.

        An update replaces everything except the LLM key, model and base URL, the search
        key and the analytics consent: those keep their stored value when the update has
        null. An empty key in the update clears the stored one.
        """
        if stored is None:
            return self.model_copy(deep=True)
        kept = {
            name: getattr(stored, name) for name in KEPT_ON_UPDATE if getattr(self, name) is None
        }
        return self.model_copy(update=kept, deep=True)

    def with_config_mcp(self, config_mcp: MCPConfig | None) -> Settings:
        """A copy whose MCP servers are the config's followed by the stored ones.

        A stored server that the config already lists (same URL, or same name for stdio
        servers) is left out, so the merge never holds duplicates.
        """
        if config_mcp is None:
            return self.model_copy(deep=True)
        stored = self.mcp_config or MCPConfig()
        sse_urls = {server.url for server in config_mcp.sse_servers}
        shttp_urls = {server.url for server in config_mcp.shttp_servers}
        stdio_names = {server.name for server in config_mcp.stdio_servers}
        merged = MCPConfig(
            sse_servers=[
                *config_mcp.sse_servers,
                *(s for s in stored.sse_servers if s.url not in sse_urls),
            ],
            stdio_servers=[
                *config_mcp.stdio_servers,
                *(s for s in stored.stdio_servers if s.name not in stdio_names),
            ],
            shttp_servers=[
                *config_mcp.shttp_servers,
                *(s for s in stored.shttp_servers if s.url not in shttp_urls),
            ],
        )
        if self.mcp_config is None and merged == MCPConfig():
            return self.model_copy(deep=True)
        return self.model_copy(update={"mcp_config": merged}, deep=True)

    def merge_with_config_settings(self) -> Settings:
        """Add the MCP servers of ``Settings.from_config()`` to these settings, in place.

        Without stored servers the config's are taken; with both, each list holds the
        config's servers first, then the stored ones. Returns ``self``.
        """
        config_settings = Settings.from_config()
        if config_settings is None or config_settings.mcp_config is None:
            return self
        if self.mcp_config is None:
            self.mcp_config = config_settings.mcp_config
        else:
            self.mcp_config = config_settings.mcp_config.merge(self.mcp_config)
        return self

    def has_secret(self, name: str) -> bool:
        """Whether the secret field ``name`` holds a non-empty value (``llm_api_key_set``)."""
        value: SecretStr | None = getattr(self, name)
        return value is not None and bool(value.get_secret_value())
