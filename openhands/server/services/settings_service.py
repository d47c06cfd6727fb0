"""Settings and secrets of the caller (server-api §6.5)."""

from __future__ import annotations

from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.integrations.provider import ProviderToken, ProviderType
from openhands.server.errors import InvalidProviderTokenError, SettingsNotFoundError
from openhands.server.models.settings import (
    CustomSecretName,
    CustomSecretNames,
    ProviderTokensRequest,
    SettingsResponse,
)
from openhands.server.services.git_providers import GitHubClient, is_plausible_token
from openhands.server.user_auth.user_auth import UserAuth
from openhands.storage.data_models.settings import Settings
from openhands.storage.data_models.user_secrets import UserSecrets


class SettingsService:
    def __init__(self, config: OpenHandsConfig, user_auth: UserAuth, github_api_url: str) -> None:
        self.config = config
        self.user_auth = user_auth
        self.github_api_url = github_api_url

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
        legacy = settings.secrets_store.provider_tokens
        if legacy:
            # Tokens once lived in settings.json: move them to secrets.json.
            secrets = await self._secrets()
            await self._store_secrets(
                secrets.model_copy(
                    update={"provider_tokens": {**legacy, **secrets.provider_tokens}}
                )
            )
            settings = settings.model_copy(update={"secrets_store": UserSecrets()})
            await store.store(settings)
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
        merged = incoming.merge_update(await store.load())
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

    async def store_provider_tokens(self, request: ProviderTokensRequest) -> None:
        incoming: dict[ProviderType, ProviderToken] = {}
        for provider, entry in request.provider_tokens.items():
            if entry.token and not is_plausible_token(entry.token):
                raise InvalidProviderTokenError(provider.value)
            token = ProviderToken(
                token=SecretStr(entry.token) if entry.token else None, host=entry.host
            )
            checkable = token.has_token and provider is ProviderType.GITHUB
            if checkable and not await GitHubClient(token, self.github_api_url).verify_token():
                raise InvalidProviderTokenError(provider.value)
            incoming[provider] = token
        secrets = await self._secrets()
        await self._store_secrets(secrets.with_provider_tokens(incoming))

    async def unset_provider_tokens(self) -> None:
        secrets = await self.user_auth.get_user_secrets()
        if secrets is not None:
            await self._store_secrets(secrets.without_provider_tokens())
