"""UserSecrets: git-provider tokens and custom secrets, as stored in ``secrets.json``.

On disk::

    {"provider_tokens": {"github": {"token": "...", "host": "github.com", "user_id": null}},
     "custom_secrets": {"NAME": {"secret": "...", "description": "..."}}}

The model is immutable and its two maps are read-only (``MappingProxyType``); the
``with_*``/``without_*`` helpers return updated copies. Stored data is read leniently:
a missing or null map is empty, and entries that cannot be a token or a secret are
skipped with a warning. Secret values are ``SecretStr``: JSON dumps mask them unless the
serialization context has ``expose_secrets`` (the file store uses it so that the values
survive a restart).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    SerializationInfo,
    field_serializer,
    model_validator,
)

from openhands.core.config.config_utils import EXPOSE_SECRETS
from openhands.integrations.provider import (
    CUSTOM_SECRETS_TYPE,
    CUSTOM_SECRETS_TYPE_WITH_JSON_SCHEMA,
    PROVIDER_TOKEN_TYPE,
    PROVIDER_TOKEN_TYPE_WITH_JSON_SCHEMA,
    CustomSecret,
    ProviderToken,
    ProviderType,
)

logger = logging.getLogger(__name__)

MAP_FIELDS = ("provider_tokens", "custom_secrets")


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


def _stored_map(field: str, value: Any) -> Mapping[Any, Any]:
    """The entries of a stored map; a missing, null or non-object map counts as empty."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return value
    logger.warning("Ignoring %s stored as %s instead of an object", field, type(value).__name__)
    return {}


def parse_provider_tokens(value: Any) -> PROVIDER_TOKEN_TYPE:
    """Read stored provider tokens leniently.

    Entries of unknown providers, of a shape no token can be built from, or stored without
    a token are left out (with a warning for the first two) rather than failing the load.
    """
    tokens: dict[ProviderType, ProviderToken] = {}
    for key, raw in _stored_map("provider_tokens", value).items():
        try:
            provider = ProviderType(key)
        except ValueError:
            logger.warning("Ignoring the token of unknown git provider %r", key)
            continue
        if isinstance(raw, ProviderToken):  # given, not stored: kept even without a token
            tokens[provider] = raw
            continue
        try:
            token = ProviderToken.from_value(raw)
        except (ValueError, TypeError) as exc:
            # Only the error's type is logged: its text may quote the (secret) entry.
            logger.warning("Ignoring the %s token stored as %s", key, type(exc).__name__)
            continue
        if token.has_token:
            tokens[provider] = token
    return MappingProxyType(tokens)


def parse_custom_secrets(value: Any) -> CUSTOM_SECRETS_TYPE:
    """Read stored custom secrets leniently: entries that are not a secret are left out."""
    secrets: dict[str, CustomSecret] = {}
    for name, raw in _stored_map("custom_secrets", value).items():
        try:
            secrets[str(name)] = CustomSecret.from_value(raw)
        except (ValueError, TypeError) as exc:
            logger.warning("Ignoring the custom secret %r (%s)", name, type(exc).__name__)
    return MappingProxyType(secrets)


class UserSecrets(BaseModel):
    """Read-only: the model is frozen and both maps are ``MappingProxyType``."""

    model_config = ConfigDict(frozen=True, validate_assignment=True, arbitrary_types_allowed=True)

    provider_tokens: PROVIDER_TOKEN_TYPE_WITH_JSON_SCHEMA = Field(
        default_factory=lambda: MappingProxyType({}),
        description="Git-provider tokens by provider",
    )
    custom_secrets: CUSTOM_SECRETS_TYPE_WITH_JSON_SCHEMA = Field(
        default_factory=lambda: MappingProxyType({}),
        description="User-defined secrets by name",
    )

    # --- input ------------------------------------------------------------------------

    @model_validator(mode="before")
    @classmethod
    def convert_dict_to_mappingproxy(cls, data: Any) -> Any:
        """Build both maps from stored or given data (dicts, mapping proxies, raw entries)."""
        if not isinstance(data, Mapping):
            return data  # an instance passes; anything else gets pydantic's own error
        values = dict(data)
        if "provider_tokens" in values:
            values["provider_tokens"] = parse_provider_tokens(values["provider_tokens"])
        if "custom_secrets" in values:
            values["custom_secrets"] = parse_custom_secrets(values["custom_secrets"])
        return values

    # --- output -----------------------------------------------------------------------

    @field_serializer("provider_tokens")
    def provider_tokens_serializer(
        self, provider_tokens: PROVIDER_TOKEN_TYPE, info: SerializationInfo
    ) -> dict[str, dict[str, str | None]]:
        return {
            (provider.value if isinstance(provider, ProviderType) else str(provider)): {
                "token": secret_text(token.token, info),
                "host": token.host,
                "user_id": token.user_id,
            }
            for provider, token in provider_tokens.items()
            if token.has_token
        }

    @field_serializer("custom_secrets")
    def custom_secrets_serializer(
        self, custom_secrets: CUSTOM_SECRETS_TYPE, info: SerializationInfo
    ) -> dict[str, dict[str, str | None]]:
        return {
            name: {"secret": secret_text(secret.secret, info), "description": secret.description}
            for name, secret in custom_secrets.items()
        }

    # --- copies -----------------------------------------------------------------------

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """As pydantic's (no validation), but updated maps are made read-only too."""
        if update:
            update = {
                key: MappingProxyType(dict(value))
                if key in MAP_FIELDS and isinstance(value, Mapping)
                else value
                for key, value in update.items()
            }
        return super().model_copy(update=update, deep=deep)

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        # copy.deepcopy cannot copy a mappingproxy, which would break the deep copies of
        # everything holding secrets (Settings.model_copy(deep=True)); rebuild the maps
        # around deep copies of their entries instead.
        return super().model_copy(
            update={
                name: MappingProxyType(copy.deepcopy(dict(getattr(self, name)), memo))
                for name in MAP_FIELDS
            }
        )

    # Nor can a mappingproxy be pickled: the maps travel as dicts and are wrapped again.
    def __getstate__(self) -> dict[Any, Any]:
        state = super().__getstate__()
        fields = dict(state["__dict__"])
        for name in MAP_FIELDS:
            fields[name] = dict(fields[name])
        return {**state, "__dict__": fields}

    def __setstate__(self, state: dict[Any, Any]) -> None:
        fields = dict(state.get("__dict__", {}))
        for name in MAP_FIELDS:
            if name in fields:
                fields[name] = MappingProxyType(dict(fields[name]))
        super().__setstate__({**state, "__dict__": fields})

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
