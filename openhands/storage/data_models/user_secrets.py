"""UserSecrets: git-provider tokens and custom secrets, as stored in ``secrets.json``.

On disk::

    {"provider_tokens": {"github": {"token": "...", "host": "github.com", "user_id": null}},
     "custom_secrets": {"NAME": {"secret": "...", "description": "..."}}}

The model is immutable; the ``with_*``/``without_*`` helpers return updated copies. Secret
values are ``SecretStr``: JSON dumps mask them unless the serialization context has
``expose_secrets`` (the file store uses it so that the values survive a restart).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    SerializationInfo,
    field_serializer,
    field_validator,
)

from openhands.core.config.config_utils import EXPOSE_SECRETS
from openhands.integrations.provider import CustomSecret, ProviderToken, ProviderType

logger = logging.getLogger(__name__)


class CustomSecretExistsError(ValueError):
    """A custom secret with that name already exists."""


class CustomSecretNotFoundError(LookupError):
    """No custom secret has that name."""


def secret_text(value: SecretStr | None, info: SerializationInfo) -> str | None:
    """How a secret is written: its value when the context exposes secrets, else a mask."""
    if value is None:
        return None
    if info.context and info.context.get(EXPOSE_SECRETS):
        return value.get_secret_value()
    return str(value)


class UserSecrets(BaseModel):
    model_config = ConfigDict(frozen=True)

    provider_tokens: dict[ProviderType, ProviderToken] = Field(
        default_factory=dict, description="Git-provider tokens by provider"
    )
    custom_secrets: dict[str, CustomSecret] = Field(
        default_factory=dict, description="User-defined secrets by name"
    )

    # --- input ------------------------------------------------------------------------

    @field_validator("provider_tokens", mode="before")
    @classmethod
    def _parse_provider_tokens(cls, value: Any) -> Any:
        if not isinstance(value, Mapping):
            return value
        tokens: dict[ProviderType, ProviderToken] = {}
        for key, raw in value.items():
            try:
                provider = ProviderType(key)
            except ValueError:
                logger.warning("Ignoring the token of unknown git provider %r", key)
                continue
            if isinstance(raw, ProviderToken):
                tokens[provider] = raw
                continue
            token = ProviderToken.from_value(raw)
            if token.has_token:  # entries without a token are dropped on load
                tokens[provider] = token
        return tokens

    @field_validator("custom_secrets", mode="before")
    @classmethod
    def _parse_custom_secrets(cls, value: Any) -> Any:
        if not isinstance(value, Mapping):
            return value
        return {name: CustomSecret.from_value(raw) for name, raw in value.items()}

    # --- output -----------------------------------------------------------------------

    @field_serializer("provider_tokens")
    def _dump_provider_tokens(
        self, tokens: dict[ProviderType, ProviderToken], info: SerializationInfo
    ) -> dict[str, dict[str, str | None]]:
        return {
            provider.value: {
                "token": secret_text(token.token, info),
                "host": token.host,
                "user_id": token.user_id,
            }
            for provider, token in tokens.items()
            if token.has_token
        }

    @field_serializer("custom_secrets")
    def _dump_custom_secrets(
        self, secrets: dict[str, CustomSecret], info: SerializationInfo
    ) -> dict[str, dict[str, str | None]]:
        return {
            name: {"secret": secret_text(secret.secret, info), "description": secret.description}
            for name, secret in secrets.items()
        }

    # --- views ------------------------------------------------------------------------

    def provider_hosts(self) -> dict[str, str | None]:
        """Providers that have a token or a user id, mapped to their host (``provider_tokens_set``)."""
        return {
            provider.value: token.host
            for provider, token in self.provider_tokens.items()
            if token.has_token or token.user_id
        }

    def get_env_vars(self) -> dict[str, str]:
        """Custom secrets as environment variables: ``{NAME: value}``."""
        return {
            name: secret.secret.get_secret_value() for name, secret in self.custom_secrets.items()
        }

    def get_custom_secrets_descriptions(self) -> dict[str, str]:
        return {name: secret.description for name, secret in self.custom_secrets.items()}

    # --- updated copies ---------------------------------------------------------------

    def with_custom_secret(self, name: str, value: str, description: str = "") -> UserSecrets:
        """Add a new custom secret; raises CustomSecretExistsError if the name is taken."""
        if name in self.custom_secrets:
            raise CustomSecretExistsError(f"Secret {name} already exists")
        secret = CustomSecret(secret=SecretStr(value), description=description)
        return self._copy(custom_secrets={**self.custom_secrets, name: secret})

    def with_renamed_custom_secret(
        self, secret_id: str, name: str, description: str | None = None
    ) -> UserSecrets:
        """Rename and/or redescribe ``secret_id``, keeping its value and its position.

        Raises CustomSecretNotFoundError for an unknown id and CustomSecretExistsError when
        ``name`` belongs to another secret. ``description=None`` keeps the old description.
        """
        current = self.custom_secrets.get(secret_id)
        if current is None:
            raise CustomSecretNotFoundError(f"Secret with ID {secret_id} not found")
        if name != secret_id and name in self.custom_secrets:
            raise CustomSecretExistsError(f"Secret {name} already exists")
        updated = CustomSecret(
            secret=current.secret,
            description=current.description if description is None else description,
        )
        secrets = {
            (name if key == secret_id else key): (updated if key == secret_id else value)
            for key, value in self.custom_secrets.items()
        }
        return self._copy(custom_secrets=secrets)

    def without_custom_secret(self, secret_id: str) -> UserSecrets:
        """Remove ``secret_id``; raises CustomSecretNotFoundError if it does not exist."""
        if secret_id not in self.custom_secrets:
            raise CustomSecretNotFoundError(f"Secret with ID {secret_id} not found")
        secrets = {key: value for key, value in self.custom_secrets.items() if key != secret_id}
        return self._copy(custom_secrets=secrets)

    def with_provider_tokens(self, incoming: Mapping[ProviderType, ProviderToken]) -> UserSecrets:
        """Replace the provider map by ``incoming``.

        An incoming entry without a token keeps the stored token (and user id) of that
        provider but takes the incoming host.
        """
        merged: dict[ProviderType, ProviderToken] = {}
        for provider, token in incoming.items():
            stored = self.provider_tokens.get(provider)
            if not token.has_token and stored is not None:
                token = ProviderToken(token=stored.token, user_id=stored.user_id, host=token.host)
            merged[provider] = token
        return self._copy(provider_tokens=merged)

    def without_provider_tokens(self) -> UserSecrets:
        return self._copy(provider_tokens={})

    def _copy(self, **update: Any) -> UserSecrets:
        return self.model_copy(update=update)


# The reference renamed the class to ``Secrets`` at some point; both names work.
Secrets = UserSecrets
