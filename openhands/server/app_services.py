"""The services one app instance runs on, built in the lifespan and read by dependencies.

While an app's lifespan runs, its services are also "the running services" of the process
(``running_services()``): ``openhands.server.shared`` serves the reference's module-level
names from them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property

import socketio

from openhands.core.config import OpenHandsConfig
from openhands.server.conversation_manager.conversation_manager import ConversationManager
from openhands.server.monitoring import MonitoringListener
from openhands.server.server_config import ServerConfig
from openhands.server.user_auth.user_auth import UserAuthFactory
from openhands.storage.conversation.conversation_store import ConversationStore
from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.files import FileStore
from openhands.storage.jwt_secret import ensure_jwt_secret
from openhands.storage.secrets.file_secrets_store import FileSecretsStore
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.settings.file_settings_store import FileSettingsStore
from openhands.storage.settings.settings_store import SettingsStore


@dataclass
class AppServices:
    config: OpenHandsConfig
    server_config: ServerConfig
    file_store: FileStore
    sio: socketio.AsyncServer
    conversation_manager: ConversationManager
    user_auth_factory: UserAuthFactory
    monitoring_listener: MonitoringListener = field(default_factory=MonitoringListener)
    settings_store_cls: type[SettingsStore] = FileSettingsStore
    secrets_store_cls: type[SecretsStore] = FileSecretsStore
    # None: a FileConversationStore over ``file_store`` (the default store class).
    custom_conversation_store: ConversationStore | None = None
    started_at: float = field(default_factory=time.time)
    last_request_at: float = field(default_factory=time.time)

    @cached_property
    def conversation_store(self) -> ConversationStore:
        """One store for the app's lifetime: its listing index lives on the instance."""
        if self.custom_conversation_store is not None:
            return self.custom_conversation_store
        return FileConversationStore(self.file_store)

    def session_key_ok(self, presented: str | None) -> bool:
        expected = self.server_config.session_api_key
        return not expected or presented == expected


_running: list[AppServices] = []


def load_app_config() -> OpenHandsConfig:
    """The config a server loads for itself: config.toml + environment, with its JWT secret.

    The secret is made here, at server start, not by config loading (which knows no stores).
    """
    from openhands.core.config import load_openhands_config

    config = load_openhands_config()
    ensure_jwt_secret(config)
    return config


def running_services() -> AppServices | None:
    """The services of the app whose lifespan started last and still runs, if any."""
    return _running[-1] if _running else None


def push_running(services: AppServices) -> None:
    _running.append(services)


def pop_running(services: AppServices) -> None:
    for index, running in enumerate(_running):
        if running is services:
            del _running[index]
            return
