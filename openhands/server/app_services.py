"""The services one app instance runs on, built in the lifespan and read by dependencies."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property

import socketio

from openhands.core.config import OpenHandsConfig
from openhands.server.conversation_manager.conversation_manager import ConversationManager
from openhands.server.server_config import ServerConfig
from openhands.server.user_auth.user_auth import UserAuthFactory
from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.files import FileStore


@dataclass
class AppServices:
    config: OpenHandsConfig
    server_config: ServerConfig
    file_store: FileStore
    sio: socketio.AsyncServer
    conversation_manager: ConversationManager
    user_auth_factory: UserAuthFactory
    started_at: float = field(default_factory=time.time)
    last_request_at: float = field(default_factory=time.time)

    @cached_property
    def conversation_store(self) -> FileConversationStore:
        """One store for the app's lifetime: its listing index lives on the instance."""
        return FileConversationStore(self.file_store)

    def session_key_ok(self, presented: str | None) -> bool:
        expected = self.server_config.session_api_key
        return not expected or presented == expected
