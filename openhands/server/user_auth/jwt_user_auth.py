"""Multi-user mode: an HS256 JWT (cookie or ``Authorization: Bearer``) names the user.

The token's ``sub`` claim is the user id; ``email`` is optional. The signing key is the
config's ``jwt_secret``. A missing, expired or badly signed token is a 401.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import jwt
from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.server.errors import NotAuthenticatedError
from openhands.server.user_auth.user_auth import AuthType, HeaderUserAuthFactory, UserAuth
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.settings.settings_store import SettingsStore

if TYPE_CHECKING:
    from starlette.requests import Request

ALGORITHM = "HS256"
# User ids become path segments of the file store (users/<id>/...).
_USER_ID = re.compile(r"^[A-Za-z0-9_.@+-]{1,128}$")


def _secret(config: OpenHandsConfig) -> str:
    if config.jwt_secret is None or not config.jwt_secret.get_secret_value():
        raise NotAuthenticatedError("Server has no jwt_secret")
    return config.jwt_secret.get_secret_value()


def create_user_token(
    config: OpenHandsConfig, user_id: str, email: str | None = None, ttl_seconds: int = 86_400
) -> str:
    """A signed token for ``user_id`` (used by tests and by an external login service)."""
    claims: dict[str, Any] = {"sub": user_id, "exp": int(time.time()) + ttl_seconds}
    if email:
        claims["email"] = email
    return jwt.encode(claims, _secret(config), algorithm=ALGORITHM)


class JwtUserAuth(UserAuth):
    def __init__(
        self,
        config: OpenHandsConfig | None,
        token: str | None,
        auth_type: AuthType | None,
        *,
        settings_store_cls: type[SettingsStore] | None = None,
        secrets_store_cls: type[SecretsStore] | None = None,
    ) -> None:
        super().__init__(
            config, settings_store_cls=settings_store_cls, secrets_store_cls=secrets_store_cls
        )
        self._token = token
        self._auth_type = auth_type
        self._claims: dict[str, Any] | None = None

    def _decode(self) -> dict[str, Any]:
        if self._claims is None:
            if not self._token:
                raise NotAuthenticatedError()
            try:
                claims = jwt.decode(self._token, _secret(self.config), algorithms=[ALGORITHM])
            except jwt.PyJWTError as error:
                raise NotAuthenticatedError() from error
            subject = claims.get("sub")
            if (
                not isinstance(subject, str)
                or not _USER_ID.match(subject)
                or subject
                in {
                    ".",
                    "..",
                }
            ):
                raise NotAuthenticatedError()
            self._claims = claims
        return self._claims

    async def get_user_id(self) -> str | None:
        return str(self._decode()["sub"])

    async def get_user_email(self) -> str | None:
        email = self._decode().get("email")
        return email if isinstance(email, str) else None

    async def get_access_token(self) -> SecretStr | None:
        self._decode()
        return SecretStr(self._token or "")

    def get_auth_type(self) -> AuthType | None:
        return self._auth_type

    @classmethod
    async def get_instance(cls, request: Request) -> UserAuth:
        from openhands.server.app_services import services_of

        services = await services_of(request.scope.get("app"))
        factory = JwtUserAuthFactory(
            services.config,
            services.server_config.auth_cookie_name,
            services.settings_store_cls,
            services.secrets_store_cls,
        )
        return factory.from_headers(request.headers, request.cookies)


class JwtUserAuthFactory(HeaderUserAuthFactory):
    def __init__(
        self,
        config: OpenHandsConfig,
        cookie_name: str,
        settings_store_cls: type[SettingsStore] | None = None,
        secrets_store_cls: type[SecretsStore] | None = None,
    ) -> None:
        self.config = config
        self.cookie_name = cookie_name
        self.settings_store_cls = settings_store_cls
        self.secrets_store_cls = secrets_store_cls

    def _auth(self, token: str | None, auth_type: AuthType | None) -> JwtUserAuth:
        return JwtUserAuth(
            self.config,
            token,
            auth_type,
            settings_store_cls=self.settings_store_cls,
            secrets_store_cls=self.secrets_store_cls,
        )

    def from_headers(
        self, headers: Mapping[str, str], cookies: Mapping[str, str], token: str | None = None
    ) -> UserAuth:
        if token:
            return self._auth(token, AuthType.BEARER)
        authorization = headers.get("authorization", "")
        scheme, _, credentials = authorization.partition(" ")
        if scheme.lower() == "bearer" and credentials.strip():
            return self._auth(credentials.strip(), AuthType.BEARER)
        cookie = cookies.get(self.cookie_name)
        return self._auth(cookie, AuthType.COOKIE if cookie else None)
