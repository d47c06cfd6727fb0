"""The caller of a request: ``get_user_auth`` and the reference's request helpers.

``get_user_auth(request)`` builds the request's ``UserAuth`` once (the factory of the
request's app, ``app_services.services_of``) and caches it on
``request.state``; the other helpers are FastAPI dependencies that return one of its
values. ``user_auth_factory`` chooses the factory from the server config.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from fastapi import Request
from pydantic import SecretStr

from openhands.integrations.provider import ProviderToken, ProviderType
from openhands.server.user_auth.default_user_auth import DefaultUserAuthFactory
from openhands.server.user_auth.user_auth import (
    AuthType,
    ClassUserAuthFactory,
    UserAuth,
    UserAuthFactory,
)
from openhands.storage.data_models.settings import Settings
from openhands.storage.data_models.user_secrets import UserSecrets
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.settings.settings_store import SettingsStore

if TYPE_CHECKING:
    from openhands.core.config import OpenHandsConfig
    from openhands.server.server_config import ServerConfig


def user_auth_factory(
    config: OpenHandsConfig,
    server_config: ServerConfig,
    settings_store_cls: type[SettingsStore] | None = None,
    secrets_store_cls: type[SecretsStore] | None = None,
) -> UserAuthFactory:
    """A ``user_auth_class`` other than the default wins; else ``user_auth`` picks single
    user or JWT."""
    from openhands.server.server_config import DEFAULT_USER_AUTH

    if server_config.user_auth_class != DEFAULT_USER_AUTH:
        from openhands.utils.import_utils import get_impl

        return ClassUserAuthFactory(get_impl(UserAuth, server_config.user_auth_class))
    if server_config.user_auth == "jwt":
        # PyJWT (and its crypto backends) load only in the mode that needs them.
        from openhands.server.user_auth.jwt_user_auth import JwtUserAuthFactory

        return JwtUserAuthFactory(
            config, server_config.auth_cookie_name, settings_store_cls, secrets_store_cls
        )
    return DefaultUserAuthFactory(config, settings_store_cls, secrets_store_cls)


async def _factory_of(request: Request) -> UserAuthFactory:
    # At call time: the services module sits above user auth (it holds the factory).
    from openhands.server.app_services import services_of

    return (await services_of(request.scope.get("app"))).user_auth_factory


async def get_user_auth(request: Request) -> UserAuth:
    cached = getattr(request.state, "user_auth", None)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    user_auth = await (await _factory_of(request)).create(request.headers, request.cookies)
    request.state.user_auth = user_auth
    return user_auth


async def get_provider_tokens(request: Request) -> Mapping[ProviderType, ProviderToken] | None:
    return await (await get_user_auth(request)).get_provider_tokens()


async def get_access_token(request: Request) -> SecretStr | None:
    return await (await get_user_auth(request)).get_access_token()


async def get_user_id(request: Request) -> str | None:
    return await (await get_user_auth(request)).get_user_id()


async def get_user_settings(request: Request) -> Settings | None:
    return await (await get_user_auth(request)).get_user_settings()


async def get_secrets_store(request: Request) -> SecretsStore:
    return await (await get_user_auth(request)).get_secrets_store()


async def get_user_secrets(request: Request) -> UserSecrets | None:
    return await (await get_user_auth(request)).get_user_secrets()


async def get_user_settings_store(request: Request) -> SettingsStore:
    return await (await get_user_auth(request)).get_user_settings_store()


async def get_auth_type(request: Request) -> AuthType | None:
    return (await get_user_auth(request)).get_auth_type()
