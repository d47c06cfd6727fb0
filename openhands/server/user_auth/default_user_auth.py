"""Single-user mode (OSS): nobody logs in, the user id is None, files live at the store root.

``DefaultUserAuth()`` needs no arguments: without a config it uses the running app's
(``openhands.server.shared.config``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from openhands.core.config import OpenHandsConfig
from openhands.server.user_auth.user_auth import HeaderUserAuthFactory, UserAuth
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.settings.settings_store import SettingsStore

if TYPE_CHECKING:
    from starlette.requests import Request


class DefaultUserAuth(UserAuth):
    async def get_user_id(self) -> str | None:
        return None

    @classmethod
    async def get_instance(cls, request: Request) -> UserAuth:
        return cls()


class DefaultUserAuthFactory(HeaderUserAuthFactory):
    def __init__(
        self,
        config: OpenHandsConfig,
        settings_store_cls: type[SettingsStore] | None = None,
        secrets_store_cls: type[SecretsStore] | None = None,
    ) -> None:
        self.config = config
        self.settings_store_cls = settings_store_cls
        self.secrets_store_cls = secrets_store_cls

    def from_headers(
        self, headers: Mapping[str, str], cookies: Mapping[str, str], token: str | None = None
    ) -> UserAuth:
        return DefaultUserAuth(
            self.config,
            settings_store_cls=self.settings_store_cls,
            secrets_store_cls=self.secrets_store_cls,
        )
