"""Third-party-style extensions of the server (python-api §6.2), loaded by a real server
process through ``OPENHANDS_CONFIG_CLS=tests.server.extensions.RecordingServerConfig``.

Each class appends a line to the file named by ``EXTENSION_RECORD`` whenever the server
uses it, so the test can see that the subclass (not the default) is what runs.
"""

from __future__ import annotations

import os
from typing import Any

from starlette.requests import Request

from openhands.core.config import OpenHandsConfig
from openhands.server.conversation_manager.standalone_conversation_manager import (
    StandaloneConversationManager,
)
from openhands.server.monitoring import MonitoringListener
from openhands.server.server_config import ServerConfig
from openhands.server.user_auth.default_user_auth import DefaultUserAuth
from openhands.server.user_auth.user_auth import UserAuth
from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.data_models.conversation_metadata_result_set import (
    ConversationMetadataResultSet,
)
from openhands.storage.secrets.file_secrets_store import FileSecretsStore
from openhands.storage.settings.file_settings_store import FileSettingsStore

_HERE = "tests.server.extensions"


def record(line: str) -> None:
    with open(os.environ["EXTENSION_RECORD"], "a") as handle:
        handle.write(line + "\n")


class RecordingSettingsStore(FileSettingsStore):
    @classmethod
    async def get_instance(cls, config: Any, user_id: str | None) -> FileSettingsStore:
        record(f"settings_store {user_id}")
        return await super().get_instance(config, user_id)


class RecordingSecretsStore(FileSecretsStore):
    @classmethod
    async def get_instance(cls, config: Any, user_id: str | None) -> FileSecretsStore:
        record(f"secrets_store {user_id}")
        return await super().get_instance(config, user_id)


class RecordingConversationStore(FileConversationStore):
    @classmethod
    async def get_instance(cls, config: Any, user_id: str | None) -> FileConversationStore:
        record("conversation_store")
        return await super().get_instance(config, user_id)

    async def search(
        self, page_id: str | None = None, limit: int = 20, *, owner: str | None = None
    ) -> ConversationMetadataResultSet:
        record("conversation_store.search")
        return await super().search(page_id, limit, owner=owner)


class RecordingConversationManager(StandaloneConversationManager):
    @classmethod
    def get_instance(cls, *args: Any, **kwargs: Any) -> StandaloneConversationManager:
        manager = super().get_instance(*args, **kwargs)
        record(f"conversation_manager {type(manager.monitoring_listener).__name__}")
        return manager


class RecordingMonitoringListener(MonitoringListener):
    @classmethod
    def get_instance(cls, config: OpenHandsConfig) -> MonitoringListener:
        record("monitoring_listener")
        return cls()


class HeaderUserAuth(DefaultUserAuth):
    """The user named by the `X-Test-User` header (none: the single user)."""

    def __init__(self, user_id: str | None = None) -> None:
        super().__init__()
        self._user_id = user_id

    async def get_user_id(self) -> str | None:
        return self._user_id

    @classmethod
    async def get_instance(cls, request: Request) -> UserAuth:
        user_id = request.headers.get("x-test-user")
        record(f"user_auth {user_id}")
        return cls(user_id)


class RecordingServerConfig(ServerConfig):
    settings_store_class: str = f"{_HERE}.RecordingSettingsStore"
    secret_store_class: str = f"{_HERE}.RecordingSecretsStore"
    conversation_store_class: str = f"{_HERE}.RecordingConversationStore"
    conversation_manager_class: str = f"{_HERE}.RecordingConversationManager"
    monitoring_listener_class: str = f"{_HERE}.RecordingMonitoringListener"
    user_auth_class: str = f"{_HERE}.HeaderUserAuth"

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "POSTHOG_CLIENT_KEY": "from-subclass"}
