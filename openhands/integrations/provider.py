"""Credentials for git providers and user-defined secrets.

Both are immutable; the secret values are ``SecretStr`` so they never show up in ``repr``
or logs. Use ``get_secret_value()`` where the real value is needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from openhands.integrations.service_types import ProviderType


class ProviderToken(BaseModel):
    """An access token for one provider, with the provider's host and the user's id there."""

    model_config = ConfigDict(frozen=True)

    token: SecretStr | None = Field(default=None, description="The access token")
    user_id: str | None = Field(default=None, description="The user's id at the provider")
    host: str | None = Field(default=None, description="e.g. github.com or an enterprise host")

    @classmethod
    def from_value(cls, value: ProviderToken | Mapping[str, Any] | str | None) -> ProviderToken:
        """Accept a ProviderToken, a ``{token, user_id?, host?}`` dict or a bare token string."""
        if isinstance(value, ProviderToken):
            return value
        if value is None:
            return cls()
        if isinstance(value, str):
            return cls(token=SecretStr(value))
        if isinstance(value, Mapping):
            return cls.model_validate(
                {
                    "token": value.get("token"),
                    "user_id": value.get("user_id"),
                    "host": value.get("host"),
                }
            )
        raise TypeError(f"Cannot build a ProviderToken from {type(value).__name__}")

    @property
    def has_token(self) -> bool:
        return self.token is not None and bool(self.token.get_secret_value())


class CustomSecret(BaseModel):
    """A user-defined secret, exposed to the agent's sandbox as an environment variable."""

    model_config = ConfigDict(frozen=True)

    secret: SecretStr = Field(default=SecretStr(""), description="The secret value")
    description: str = Field(default="", description="What the secret is for")

    @classmethod
    def from_value(cls, value: CustomSecret | Mapping[str, Any] | str) -> CustomSecret:
        """Accept a CustomSecret, a ``{secret, description?}`` dict or a bare value string."""
        if isinstance(value, CustomSecret):
            return value
        if isinstance(value, str):
            return cls(secret=SecretStr(value))
        if isinstance(value, Mapping):
            return cls.model_validate(
                {"secret": value.get("secret", ""), "description": value.get("description") or ""}
            )
        raise TypeError(f"Cannot build a CustomSecret from {type(value).__name__}")


PROVIDER_TOKEN_TYPE = Mapping[ProviderType, ProviderToken]
CUSTOM_SECRETS_TYPE = Mapping[str, CustomSecret]

__all__ = [
    "CUSTOM_SECRETS_TYPE",
    "PROVIDER_TOKEN_TYPE",
    "CustomSecret",
    "ProviderToken",
    "ProviderType",
]
