"""REST models of the settings, secrets and git-provider token routes (server-api §6.5)."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field, SecretStr, field_validator

from openhands.core.config.mcp_config import MCPConfig
from openhands.integrations.provider import CustomSecret, ProviderToken
from openhands.integrations.service_types import ProviderType
from openhands.storage.data_models.settings import Settings


class SettingsResponse(Settings):
    """GET /api/settings: the settings with every key nulled, plus which keys are set."""

    llm_api_key_set: bool = Field(description="An LLM key is stored")
    search_api_key_set: bool = Field(default=False, description="A search key is stored")
    provider_tokens_set: dict[str, str | None] = Field(
        default_factory=dict, description="Providers with a token, mapped to their host"
    )


class MessageResponse(BaseModel):
    message: str


class CustomSecretName(BaseModel):
    name: str
    description: str | None = None


class CustomSecretNames(BaseModel):
    custom_secrets: list[CustomSecretName]


class CustomSecretCreate(CustomSecretName):
    name: str = Field(description="Environment variable name")
    value: SecretStr = Field(description="The secret value (never returned)")


class CustomSecretsUpdate(BaseModel):
    """Several custom secrets at once (the reference's ``POSTCustomSecrets``)."""

    custom_secrets: dict[str, CustomSecret] = Field(default_factory=dict)


class CustomSecretUpdate(BaseModel):
    name: str = Field(description="New name (may equal the old one)")
    description: str | None = None


class ProviderTokenInput(BaseModel):
    token: str | None = Field(default=None, description="Empty: keep the stored token")
    host: str | None = None


class ProviderTokensRequest(BaseModel):
    mcp_config: MCPConfig | None = Field(default=None, description="Accepted and ignored")
    provider_tokens: dict[ProviderType, ProviderTokenInput] = Field(default_factory=dict)

    @field_validator("provider_tokens", mode="before")
    @classmethod
    def _accept_stored_tokens(cls, value: object) -> object:
        """Python callers may pass ``ProviderToken`` objects (the reference model's type);
        each becomes its token text and host."""
        if not isinstance(value, Mapping):
            return value
        return {
            provider: (
                {
                    "token": entry.token.get_secret_value() if entry.token else None,
                    "host": entry.host,
                }
                if isinstance(entry, ProviderToken)
                else entry
            )
            for provider, entry in value.items()
        }
