"""The services one app instance runs on, built in the lifespan and read by dependencies.

Code that serves a request reaches them through the request's app
(``services_of(request.app)``, the ``Services`` dependency), a socket handler through the
Socket.IO server it was registered on, middleware through ``scope["app"]``.

This module also keeps the process's registry of apps whose lifespan runs. Only the
compatibility adapter (``openhands.server.shared``) reads it: it serves the reference's
module-level names from the running app. When the adapter had to build a conversation
manager of its own (no app was running), an app that starts later retires that manager
(``retire_adapter_objects``) or, when conversations run on it, refuses to start: one
process never runs two managers side by side.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import socketio

from openhands.core.config import OpenHandsConfig
from openhands.server.conversation_manager.conversation_manager import ConversationManager
from openhands.server.monitoring import MonitoringListener
from openhands.server.server_config import ServerConfig
from openhands.server.user_auth.user_auth import UserAuthFactory
from openhands.storage.conversation.conversation_store import ConversationStore
from openhands.storage.files import FileStore
from openhands.storage.jwt_secret import ensure_jwt_secret
from openhands.storage.secrets.file_secrets_store import FileSecretsStore
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.settings.file_settings_store import FileSettingsStore
from openhands.storage.settings.settings_store import SettingsStore

if TYPE_CHECKING:
    from starlette.types import ASGIApp


@dataclass
class AppServices:
    config: OpenHandsConfig
    server_config: ServerConfig
    file_store: FileStore
    sio: socketio.AsyncServer
    conversation_manager: ConversationManager
    user_auth_factory: UserAuthFactory
    # One store for the app's lifetime, shared with the manager (its listing index lives
    # on the instance, so routes and running conversations must use the same one).
    conversation_store: ConversationStore
    monitoring_listener: MonitoringListener = field(default_factory=MonitoringListener)
    settings_store_cls: type[SettingsStore] = FileSettingsStore
    secrets_store_cls: type[SecretsStore] = FileSecretsStore
    started_at: float = field(default_factory=time.time)
    last_request_at: float = field(default_factory=time.time)

    def session_key_ok(self, presented: str | None) -> bool:
        expected = self.server_config.session_api_key
        return not expected or presented == expected


def load_app_config() -> OpenHandsConfig:
    """The config a server loads for itself: config.toml + environment, with its JWT secret.

    The secret is made here, at server start, not by config loading (which knows no stores).
    """
    from openhands.core.config import load_openhands_config

    config = load_openhands_config()
    ensure_jwt_secret(config)
    return config


async def services_of(app: ASGIApp | None) -> AppServices:
    """The services of ``app`` (a request's ``request.app`` / ``scope["app"]``).

    An app built by ``create_app`` has them from its lifespan. The reference's routers can
    also be mounted in a plain FastAPI app that built none (its tests do): that app is
    served by the compatibility adapter's set (the running app's, else one built once per
    process from config.toml + environment).
    """
    services = getattr(getattr(app, "state", None), "services", None)
    if isinstance(services, AppServices):
        return services
    from openhands.server import shared  # the adapter: the one process-wide lookup

    return await shared.process_services()


# --- the process registry: read by the compatibility adapter only -------------------------

_running: list[AppServices] = []
# What the adapter built while no app ran, by name (its objects are kept until an app
# starts and retires them).
_adapter_built: dict[str, object] = {}


def running_services() -> AppServices | None:
    """The services of the app whose lifespan started last and still runs, if any."""
    return _running[-1] if _running else None


def adapter_built() -> dict[str, object]:
    """The adapter's own objects (its cache lives here so an app start can retire it)."""
    return _adapter_built


async def retire_adapter_objects() -> None:
    """Before an app builds its services: drop what the adapter built with no app running.

    A manager the adapter built that runs conversations cannot be dropped (they would be
    orphaned) nor run beside the app's: the app refuses to start.
    """
    manager = _adapter_built.get("conversation_manager")
    if isinstance(manager, ConversationManager) and await manager.get_running_agent_loops():
        raise RuntimeError(
            "openhands.server.shared built a conversation manager before this app started "
            "(no app was running) and conversations run on it; one process runs one "
            "manager. Start the app first, or close those conversations "
            "(shared.conversation_manager.close_session) before starting it."
        )
    _adapter_built.clear()


def push_running(services: AppServices) -> None:
    _running.append(services)


def pop_running(services: AppServices) -> None:
    for index, running in enumerate(_running):
        if running is services:
            del _running[index]
            return
