"""Single-user mode (OSS): nobody logs in, the user id is None, files live at the store root."""

from __future__ import annotations

from collections.abc import Mapping

from openhands.core.config import OpenHandsConfig
from openhands.server.user_auth.user_auth import UserAuth, UserAuthFactory


class DefaultUserAuth(UserAuth):
    async def get_user_id(self) -> str | None:
        return None


class DefaultUserAuthFactory(UserAuthFactory):
    def __init__(self, config: OpenHandsConfig) -> None:
        self.config = config

    def from_headers(
        self, headers: Mapping[str, str], cookies: Mapping[str, str], token: str | None = None
    ) -> UserAuth:
        return DefaultUserAuth(self.config)
