"""The UserAuth seam: one object per request (or socket connect) that names the caller and
opens that caller's settings and secrets."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from enum import StrEnum

from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.integrations.provider import ProviderToken, ProviderType
from openhands.storage.data_models.settings import Settings
from openhands.storage.data_models.user_secrets import UserSecrets
from openhands.storage.secrets.file_secrets_store import FileSecretsStore
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.settings.file_settings_store import FileSettingsStore
from openhands.storage.settings.settings_store import SettingsStore


class AuthType(StrEnum):
    COOKIE = "cookie"
    BEARER = "bearer"


class UserAuth(ABC):
    """The caller of one request. Stores are opened lazily and cached on the instance."""

    def __init__(self, config: OpenHandsConfig) -> None:
        self.config = config
        self._settings_store: SettingsStore | None = None
        self._secrets_store: SecretsStore | None = None

    @abstractmethod
    async def get_user_id(self) -> str | None:
        """The caller's id; None in single-user mode. Raises NotAuthenticatedError."""

    async def get_user_email(self) -> str | None:
        return None

    async def get_access_token(self) -> SecretStr | None:
        return None

    def get_auth_type(self) -> AuthType | None:
        return None

    async def get_user_settings_store(self) -> SettingsStore:
        if self._settings_store is None:
            user_id = await self.get_user_id()
            self._settings_store = await FileSettingsStore.get_instance(self.config, user_id)
        return self._settings_store

    async def get_user_settings(self) -> Settings | None:
        store = await self.get_user_settings_store()
        return await store.load()

    async def get_secrets_store(self) -> SecretsStore:
        if self._secrets_store is None:
            user_id = await self.get_user_id()
            self._secrets_store = await FileSecretsStore.get_instance(self.config, user_id)
        return self._secrets_store

    async def get_user_secrets(self) -> UserSecrets | None:
        store = await self.get_secrets_store()
        return await store.load()

    async def get_provider_tokens(self) -> Mapping[ProviderType, ProviderToken] | None:
        secrets = await self.get_user_secrets()
        return None if secrets is None else secrets.provider_tokens


class UserAuthFactory(ABC):
    """Builds the UserAuth of an HTTP request or a socket handshake."""

    @abstractmethod
    def from_headers(
        self, headers: Mapping[str, str], cookies: Mapping[str, str], token: str | None = None
    ) -> UserAuth:
        """``token`` is an explicit credential (e.g. the socket ``auth`` payload)."""
