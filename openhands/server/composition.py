"""The composition root of the server: ``AppServices`` built from a config.

``build_services`` loads the server config's extension points (file store, monitoring
listener, conversation manager, store classes, user auth) with ``get_impl``;
``assemble_services`` puts the set together around an existing manager (the
compatibility adapter's, see ``shared.py``) and hands the manager the one conversation
store, whatever its class. ``create_sio`` is the Socket.IO server of an app. The app's
lifespan (``app.py``) calls these; nothing here starts anything.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import socketio

from openhands.core.config import OpenHandsConfig
from openhands.server import socket_json
from openhands.server.app_services import AppServices
from openhands.server.conversation_manager.conversation_manager import ConversationManager
from openhands.server.monitoring import MonitoringListener
from openhands.server.server_config import DEFAULT_CONVERSATION_STORE, ServerConfig
from openhands.server.user_auth.request_auth import user_auth_factory
from openhands.storage.conversation.conversation_store import ConversationStore
from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.factory import get_file_store_from_config
from openhands.storage.files import FileStore
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.settings.settings_store import SettingsStore
from openhands.utils.import_utils import get_impl

# Builds the conversation manager instead of the `conversation_manager_class` extension
# point (tests: a manager over fake agent sessions); the arguments of `get_instance`.
ManagerFactory = Callable[
    [socketio.AsyncServer, OpenHandsConfig, FileStore, ServerConfig, MonitoringListener],
    ConversationManager,
]


async def build_services(
    app_config: OpenHandsConfig,
    server: ServerConfig,
    sio: socketio.AsyncServer,
    manager_factory: ManagerFactory | None = None,
) -> AppServices:
    """The app's services, the extension points of ``server`` loaded with ``get_impl``."""
    file_store = get_file_store_from_config(app_config)
    listener_cls = get_impl(MonitoringListener, server.monitoring_listener_class)
    monitoring_listener = listener_cls.get_instance(app_config)
    if manager_factory is None:
        manager_cls = get_impl(ConversationManager, server.conversation_manager_class)  # type: ignore[type-abstract]
        manager = manager_cls.get_instance(sio, app_config, file_store, server, monitoring_listener)
    else:
        manager = manager_factory(sio, app_config, file_store, server, monitoring_listener)
    return await assemble_services(
        app_config, server, sio, manager, monitoring_listener, file_store
    )


async def assemble_services(
    app_config: OpenHandsConfig,
    server: ServerConfig,
    sio: socketio.AsyncServer,
    manager: ConversationManager,
    monitoring_listener: MonitoringListener,
    file_store: FileStore,
) -> AppServices:
    """``AppServices`` around an existing manager: the store classes of ``server`` and the
    one conversation store, which the manager is given too (whatever its class), so
    running conversations write their metadata where the routes read it."""
    settings_store_cls = get_impl(SettingsStore, server.settings_store_class)  # type: ignore[type-abstract]
    secrets_store_cls = get_impl(SecretsStore, server.secret_store_class)  # type: ignore[type-abstract]
    conversation_store: ConversationStore
    if server.conversation_store_class == DEFAULT_CONVERSATION_STORE:
        conversation_store = FileConversationStore(file_store)
    else:
        store_cls = get_impl(ConversationStore, server.conversation_store_class)  # type: ignore[type-abstract]
        conversation_store = await store_cls.get_instance(app_config, None)
    manager.conversation_store = conversation_store
    return AppServices(
        config=app_config,
        server_config=server,
        file_store=file_store,
        sio=sio,
        conversation_manager=manager,
        user_auth_factory=user_auth_factory(
            app_config, server, settings_store_cls, secrets_store_cls
        ),
        conversation_store=conversation_store,
        monitoring_listener=monitoring_listener,
        settings_store_cls=settings_store_cls,
        secrets_store_cls=secrets_store_cls,
    )


def create_sio(server_config: ServerConfig) -> socketio.AsyncServer:
    client_manager = None
    redis_host = os.environ.get("REDIS_HOST")
    if redis_host:
        # Emits reach the sockets of every node (the password never enters a URL).
        from openhands.server.redis_socket_manager import RedisSocketManager

        client_manager = RedisSocketManager(redis_host, os.environ.get("REDIS_PASSWORD") or None)
    return socketio.AsyncServer(
        async_mode="asgi",
        cors_allowed_origins="*",
        max_http_buffer_size=server_config.max_upload_bytes,
        client_manager=client_manager,
        json=socket_json,
    )
