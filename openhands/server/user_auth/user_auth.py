"""The UserAuth seam: one object per request (or socket connect) that names the caller and
opens that caller's settings and secrets.

The app builds one per request through its ``UserAuthFactory`` (chosen from the server
config: single user, JWT, or the ``user_auth_class`` extension point, whose
``get_instance(request)`` is then called). Configuration and store classes not given to
the constructor come from ``openhands.server.shared`` (the running app's objects).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING

from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.core.config.mcp_config import MCPConfig
from openhands.integrations.provider import ProviderToken, ProviderType
from openhands.storage.data_models.settings import Settings
from openhands.storage.data_models.user_secrets import UserSecrets
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.settings.settings_store import SettingsStore

if TYPE_CHECKING:
    from starlette.requests import Request


class AuthType(StrEnum):
    COOKIE = "cookie"
    BEARER = "bearer"


class UserAuth(ABC):
    """The caller of one request. Stores and settings are opened lazily and cached."""

    def __init__(
        self,
        config: OpenHandsConfig | None = None,
        *,
        settings_store_cls: type[SettingsStore] | None = None,
        secrets_store_cls: type[SecretsStore] | None = None,
    ) -> None:
        self._config = config
        self.settings_store_cls = settings_store_cls
        self.secrets_store_cls = secrets_store_cls
        self._settings_store: SettingsStore | None = None
        self._secrets_store: SecretsStore | None = None
        self._settings: Settings | None = None
        self._settings_loaded = False

    @property
    def config(self) -> OpenHandsConfig:
        if self._config is None:
            from openhands.server import shared

            self._config = shared.config
        return self._config

    @config.setter
    def config(self, value: OpenHandsConfig) -> None:
        self._config = value

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
            store_cls = self.settings_store_cls
            if store_cls is None:
                from openhands.server import shared

                store_cls = shared.SettingsStoreImpl
            user_id = await self.get_user_id()
            self._settings_store = await store_cls.get_instance(self.config, user_id)
        return self._settings_store

    async def get_user_settings(self) -> Settings | None:
        """The stored settings, loaded once per instance (None when there are none), with
        the MCP servers of the app config (config.toml) first and the stored ones after."""
        if not self._settings_loaded:
            store = await self.get_user_settings_store()
            settings = await store.load()
            if settings is not None:
                settings = settings.with_config_mcp(self._config_mcp())
            self._settings = settings
            self._settings_loaded = settings is not None
        return self._settings

    def _config_mcp(self) -> MCPConfig:
        """The app config's MCP servers, read as ``Settings.from_config`` sees them."""
        from_config = Settings.from_config(self.config)
        if from_config is not None and from_config.mcp_config is not None:
            return from_config.mcp_config
        return self.config.mcp

    async def get_secrets_store(self) -> SecretsStore:
        if self._secrets_store is None:
            store_cls = self.secrets_store_cls
            if store_cls is None:
                from openhands.server import shared

                store_cls = shared.SecretsStoreImpl
            user_id = await self.get_user_id()
            self._secrets_store = await store_cls.get_instance(self.config, user_id)
        return self._secrets_store

    async def get_user_secrets(self) -> UserSecrets | None:
        store = await self.get_secrets_store()
        return await store.load()

    async def get_provider_tokens(self) -> Mapping[ProviderType, ProviderToken] | None:
        secrets = await self.get_user_secrets()
        return None if secrets is None else secrets.provider_tokens

    @classmethod
    @abstractmethod
    async def get_instance(cls, request: Request) -> UserAuth:
        """The UserAuth of ``request`` (the ``user_auth_class`` extension point)."""


class UserAuthFactory(ABC):
    """Builds the UserAuth of an HTTP request or a socket handshake."""

    @abstractmethod
    async def create(
        self, headers: Mapping[str, str], cookies: Mapping[str, str], token: str | None = None
    ) -> UserAuth:
        """``token`` is an explicit credential (e.g. the socket ``auth`` payload)."""


class HeaderUserAuthFactory(UserAuthFactory):
    """A factory that needs nothing but the headers (no I/O): single user and JWT."""

    @abstractmethod
    def from_headers(
        self, headers: Mapping[str, str], cookies: Mapping[str, str], token: str | None = None
    ) -> UserAuth: ...

    async def create(
        self, headers: Mapping[str, str], cookies: Mapping[str, str], token: str | None = None
    ) -> UserAuth:
        return self.from_headers(headers, cookies, token)


class ClassUserAuthFactory(UserAuthFactory):
    """The ``user_auth_class`` extension point: ``await user_auth_cls.get_instance(request)``.

    A socket handshake has no HTTP request, so one is made from its headers, its cookies
    and (as ``Authorization: Bearer``) its explicit token.
    """

    def __init__(self, user_auth_cls: type[UserAuth]) -> None:
        self.user_auth_cls = user_auth_cls

    async def create(
        self, headers: Mapping[str, str], cookies: Mapping[str, str], token: str | None = None
    ) -> UserAuth:
        from starlette.requests import Request

        raw = [
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in headers.items()
            if not (token and name.lower() == "authorization")
        ]
        if cookies and "cookie" not in {name.lower() for name in headers}:
            cookie = "; ".join(f"{name}={value}" for name, value in cookies.items())
            raw.append((b"cookie", cookie.encode("latin-1")))
        if token:
            raw.append((b"authorization", f"Bearer {token}".encode("latin-1")))
        request = Request({"type": "http", "method": "GET", "path": "/", "headers": raw})
        return await self.user_auth_cls.get_instance(request)
