"""Settings and secrets of the caller (server-api §6.5).

The module functions are the steps the reference names (``store_llm_settings``,
``convert_to_settings``, ``invalidate_legacy_secrets_store``, ``check_provider_tokens``,
``process_token_validation_result``); ``SettingsService`` composes them for the routes,
and ``routes/settings.py`` / ``routes/secrets.py`` re-export them under the reference paths.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.integrations.provider import ProviderToken, ProviderType
from openhands.integrations.utils import validate_provider_token
from openhands.server.errors import (
    ErrorBodyError,
    InvalidProviderTokenError,
    SettingsNotFoundError,
)
from openhands.server.models.settings import (
    CustomSecretName,
    CustomSecretNames,
    ProviderTokenInput,
    ProviderTokensRequest,
    SettingsResponse,
)
from openhands.server.services.git_providers import is_plausible_token
from openhands.server.user_auth.user_auth import UserAuth
from openhands.storage.data_models.settings import Settings
from openhands.storage.data_models.user_secrets import UserSecrets
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.settings.settings_store import SettingsStore


async def store_llm_settings(settings: Settings, settings_store: SettingsStore) -> Settings:
    """``settings`` as the new full settings: the stored LLM key, model and base URL (and
    search key and analytics consent) stay where ``settings`` has null. Not stored."""
    return settings.merge_update(await settings_store.load())


def convert_to_settings(settings_with_token_data: Settings) -> Settings:
    """A plain ``Settings`` of the settings fields alone: response-only fields (``*_set``)
    and the legacy ``secrets_store`` (provider tokens, custom secrets) are dropped."""
    fields = {
        name: getattr(settings_with_token_data, name)
        for name in Settings.model_fields
        if name != "secrets_store"
    }
    return Settings.model_validate(fields)


async def invalidate_legacy_secrets_store(
    settings: Settings, settings_store: SettingsStore, secrets_store: SecretsStore
) -> Settings | None:
    """Provider tokens once lived in settings.json: move them to the secrets store (a
    stored token of the same provider wins) and store the settings without them. Returns
    the cleaned settings, or None when there was nothing to move."""
    legacy = settings.secrets_store.provider_tokens
    if not legacy:
        return None
    secrets = await secrets_store.load() or UserSecrets()
    await secrets_store.store(
        secrets.model_copy(update={"provider_tokens": {**legacy, **secrets.provider_tokens}})
    )
    cleaned = settings.model_copy(update={"secrets_store": UserSecrets()})
    await settings_store.store(cleaned)
    return cleaned


def process_token_validation_result(
    confirmed_token_type: ProviderType | None, token_type: ProviderType
) -> str:
    """'' when the token was confirmed as a ``token_type`` token, else the error text."""
    if confirmed_token_type is None or confirmed_token_type != token_type:
        return str(InvalidProviderTokenError(token_type.value))
    return ""


# ``validate_provider_token``'s shape: (token, host, *, providers, api_urls) -> the provider.
TokenValidator = Callable[..., Awaitable[ProviderType | None]]


async def _confirmed_type(
    provider: ProviderType,
    token: ProviderToken,
    api_urls: Mapping[ProviderType, str] | None,
    validate: TokenValidator,
) -> ProviderType | None:
    """``provider`` when it accepts ``token`` (at the token's host), else None. Only the
    provider the token is stored for is asked: the token is not shown to the others."""
    if token.token is None or not is_plausible_token(token.token.get_secret_value()):
        return None
    return await validate(token.token, token.host, providers=(provider,), api_urls=api_urls)


def _incoming_token(entry: ProviderTokenInput) -> ProviderToken:
    return ProviderToken(token=SecretStr(entry.token) if entry.token else None, host=entry.host)


TokenCheck = Callable[
    [
        ProviderTokensRequest,
        Mapping[ProviderType, ProviderToken] | None,
        Mapping[ProviderType, str] | None,
    ],
    Awaitable[str],
]


async def check_provider_tokens(
    incoming_provider_tokens: ProviderTokensRequest,
    existing_provider_tokens: Mapping[ProviderType, ProviderToken] | None,
    api_urls: Mapping[ProviderType, str] | None = None,
    *,
    validate: TokenValidator = validate_provider_token,
) -> str:
    """'' when every incoming token may be stored, else the error text of the first one
    that may not. An empty incoming token keeps the stored one (``existing_provider_tokens``)
    and is not checked. ``api_urls``: the providers' API roots (``ProviderHandler``);
    ``validate`` asks a provider whether it accepts a token."""
    for provider, entry in incoming_provider_tokens.provider_tokens.items():
        if not entry.token:
            continue
        confirmed = await _confirmed_type(provider, _incoming_token(entry), api_urls, validate)
        message = process_token_validation_result(confirmed, provider)
        if message:
            return message
    return ""


class SettingsService:
    def __init__(
        self,
        config: OpenHandsConfig,
        user_auth: UserAuth,
        api_urls: Mapping[ProviderType, str] | None = None,
    ) -> None:
        self.config = config
        self.user_auth = user_auth
        self.api_urls = dict(api_urls or {})

    async def _secrets(self) -> UserSecrets:
        return await self.user_auth.get_user_secrets() or UserSecrets()

    async def _store_secrets(self, secrets: UserSecrets) -> None:
        await (await self.user_auth.get_secrets_store()).store(secrets)

    # --- settings ------------------------------------------------------------------------

    async def load(self) -> SettingsResponse:
        store = await self.user_auth.get_user_settings_store()
        settings = await store.load()
        if settings is None:
            raise SettingsNotFoundError()
        cleaned = await invalidate_legacy_secrets_store(
            settings, store, await self.user_auth.get_secrets_store()
        )
        settings = cleaned or settings
        secrets = await self._secrets()
        merged = settings.with_config_mcp(self.config.mcp)
        body = merged.model_dump(exclude={"llm_api_key", "search_api_key", "sandbox_api_key"})
        return SettingsResponse(
            **body,
            llm_api_key_set=settings.has_secret("llm_api_key"),
            search_api_key_set=settings.has_secret("search_api_key"),
            provider_tokens_set=secrets.provider_hosts(),
        )

    async def store(self, incoming: Settings) -> None:
        store = await self.user_auth.get_user_settings_store()
        merged = await store_llm_settings(incoming, store)
        await store.store(merged)
        # Process-wide defaults for sessions started later.
        if merged.remote_runtime_resource_factor in (1, 2, 4, 8):
            self.config.sandbox.remote_runtime_resource_factor = (
                merged.remote_runtime_resource_factor  # type: ignore[assignment]
            )
        if merged.git_user_name:
            self.config.git_user_name = merged.git_user_name
        if merged.git_user_email:
            self.config.git_user_email = merged.git_user_email

    # --- custom secrets ------------------------------------------------------------------

    async def secret_names(self) -> CustomSecretNames:
        secrets = await self._secrets()
        return CustomSecretNames(
            custom_secrets=[
                CustomSecretName(name=name, description=secret.description or None)
                for name, secret in secrets.custom_secrets.items()
            ]
        )

    async def create_secret(self, name: str, value: str, description: str | None) -> None:
        secrets = await self._secrets()
        await self._store_secrets(secrets.with_custom_secret(name, value, description or ""))

    async def update_secret(self, secret_id: str, name: str, description: str | None) -> None:
        secrets = await self.user_auth.get_user_secrets()
        if secrets is None:
            return  # nothing stored yet: nothing to update (as the reference)
        await self._store_secrets(secrets.with_renamed_custom_secret(secret_id, name, description))

    async def delete_secret(self, secret_id: str) -> None:
        secrets = await self.user_auth.get_user_secrets()
        if secrets is None:
            return
        await self._store_secrets(secrets.without_custom_secret(secret_id))

    # --- provider tokens -----------------------------------------------------------------

    async def store_provider_tokens(
        self, request: ProviderTokensRequest, check: TokenCheck | None = None
    ) -> None:
        """Validate the incoming tokens (``check``, default ``check_provider_tokens``) and
        store them merged with the stored ones (an empty token keeps the stored one)."""
        secrets = await self._secrets()
        message = await (check or check_provider_tokens)(
            request, secrets.provider_tokens, self.api_urls
        )
        if message:
            raise ErrorBodyError(message, 401)
        incoming = {
            provider: _incoming_token(entry) for provider, entry in request.provider_tokens.items()
        }
        await self._store_secrets(secrets.with_provider_tokens(incoming))

    async def unset_provider_tokens(self) -> None:
        secrets = await self.user_auth.get_user_secrets()
        if secrets is not None:
            await self._store_secrets(secrets.without_provider_tokens())
