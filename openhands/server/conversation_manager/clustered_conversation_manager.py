"""ClusteredConversationManager: several server nodes behind one address (needs Redis).

Select it with ``CONVERSATION_MANAGER_CLASS=openhands.server.conversation_manager.
clustered_conversation_manager.ClusteredConversationManager`` and ``REDIS_HOST`` (and
``REDIS_PASSWORD``); every node uses the same file store. It is the standalone manager
with the Redis lease ownership policy plugged in (``cluster_ownership``, where the rules
are described); each node publishes the URL other nodes forward its conversations' routes
to in ``OPENHANDS_NODE_URL``.
"""

from __future__ import annotations

import os

import socketio

from openhands.core.config import OpenHandsConfig
from openhands.server.conversation_manager.cluster_ownership import LeaseOwnership
from openhands.server.conversation_manager.conversation_manager import NoConversationError
from openhands.server.conversation_manager.standalone_conversation_manager import (
    StandaloneConversationManager,
)
from openhands.server.monitoring import MonitoringListener
from openhands.server.redis_socket_manager import RedisSocketManager
from openhands.server.server_config import ServerConfig
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.storage.files import FileStore
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.settings.settings_store import SettingsStore
from openhands.utils.import_utils import get_impl


class ClusterConfigurationError(RuntimeError):
    """The clustered manager was chosen without the Redis Socket.IO manager."""


class ClusteredConversationManager(StandaloneConversationManager):
    def __init__(
        self,
        sio: socketio.AsyncServer,
        config: OpenHandsConfig,
        file_store: FileStore,
        server_config: ServerConfig | None = None,
        monitoring_listener: MonitoringListener | None = None,
        *,
        cleanup_interval: float | None = None,
    ) -> None:
        sockets = sio.manager
        if not isinstance(sockets, RedisSocketManager):
            raise ClusterConfigurationError(
                "ClusteredConversationManager needs Redis: set REDIS_HOST (host or host:port) "
                "and, if the server asks for one, REDIS_PASSWORD"
            )
        self.lease_ownership = LeaseOwnership(
            sockets,
            self._stored_init_data,
            node_url=(os.environ.get("OPENHANDS_NODE_URL") or "").rstrip("/") or None,
        )
        super().__init__(
            sio,
            config,
            file_store,
            server_config,
            monitoring_listener,
            cleanup_interval=cleanup_interval,
            ownership=self.lease_ownership,
        )

    async def owner_url(self, sid: str) -> str | None:
        """The base URL of the other, living node that runs ``sid``'s loop, or None when it
        runs here, nowhere, or on a node that published no URL (``OPENHANDS_NODE_URL``).
        The conversation's routes (files, git, VS Code, …) are served by that node
        (``openhands.server.cluster_forwarding``)."""
        return await self.lease_ownership.owner_url(sid)

    async def _stored_init_data(self, sid: str) -> tuple[ConversationInitData, str | None]:
        """The start data of a conversation this node never started or joined: the owner's
        stored settings and secrets, from the stores the server config names."""
        metadata = await self.conversation_store.get_metadata(sid)
        user_id = metadata.user_id
        server = self.server_config if isinstance(self.server_config, ServerConfig) else None
        server = server or ServerConfig()
        settings_cls = get_impl(SettingsStore, server.settings_store_class)  # type: ignore[type-abstract]
        secrets_cls = get_impl(SecretsStore, server.secret_store_class)  # type: ignore[type-abstract]
        settings = await (await settings_cls.get_instance(self.config, user_id)).load()
        if settings is None:
            raise NoConversationError(sid)
        secrets = await (await secrets_cls.get_instance(self.config, user_id)).load()
        init_data = ConversationInitData.from_settings(
            settings,
            git_provider_tokens=dict(secrets.provider_tokens) if secrets else {},
            custom_secrets=dict(secrets.custom_secrets) if secrets else {},
            selected_repository=metadata.selected_repository,
            selected_branch=metadata.selected_branch,
            git_provider=metadata.git_provider,
        )
        return init_data, user_id


__all__ = ["ClusterConfigurationError", "ClusteredConversationManager"]
