"""Everything a new agent loop starts from: the user's settings plus per-conversation data."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from pydantic import (
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_serializer,
    field_validator,
)

from openhands.integrations.provider import CustomSecret, ProviderToken, ProviderType
from openhands.storage.data_models.settings import Settings


# explicit-any: mypy sees the Any in pydantic's own model machinery at the class line.
class ConversationInitData(Settings):  # type: ignore[explicit-any]
    """Settings + git tokens + custom secrets + repository and instructions (server-api §8.2)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=True)

    git_provider_tokens: Mapping[ProviderType, ProviderToken] | None = Field(
        default=None, description="Tokens for cloning and for the agent's git use"
    )
    custom_secrets: Mapping[str, CustomSecret] | None = Field(
        default=None, description="Exposed to the sandbox as environment variables"
    )
    selected_repository: str | None = None
    selected_branch: str | None = None
    git_provider: ProviderType | None = None
    conversation_instructions: str | None = None

    @field_validator("git_provider_tokens", "custom_secrets", mode="after")
    @classmethod
    def _read_only(cls, value: Mapping[object, object] | None) -> Mapping[object, object] | None:
        """Tokens and secrets are kept read-only (``MappingProxyType``), however given."""
        if value is None or isinstance(value, MappingProxyType):
            return value
        return MappingProxyType(dict(value))

    @field_serializer("git_provider_tokens", "custom_secrets", mode="wrap")
    def _as_dict(
        self, value: Mapping[object, object] | None, handler: SerializerFunctionWrapHandler
    ) -> object:
        # Serialized as the plain dict it wraps (pydantic does not know MappingProxyType).
        return handler(None if value is None else dict(value))

    @classmethod
    def from_settings(cls, settings: Settings, **extra: object) -> ConversationInitData:
        data: dict[str, object] = {name: getattr(settings, name) for name in Settings.model_fields}
        data.pop("secrets_store", None)
        # Validated: the values come from another model and from callers' keywords.
        return cls.model_validate(data | extra)

    def secret_values(self) -> dict[str, str]:
        """Values to mask in the event stream: provider tokens and custom secrets."""
        values: dict[str, str] = {}
        for provider, token in (self.git_provider_tokens or MappingProxyType({})).items():
            if token.token is not None and token.token.get_secret_value():
                values[f"{provider.value}_token"] = token.token.get_secret_value()
        for name, secret in (self.custom_secrets or MappingProxyType({})).items():
            if secret.secret.get_secret_value():
                values[name] = secret.secret.get_secret_value()
        return values
