"""The ConversationManager seam (server-api §8)."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from openhands.events.action import MessageAction
from openhands.events.event_store import EventStore
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.server.session.server_conversation import ServerConversation
from openhands.storage.data_models.conversation_status import ConversationStatus

if TYPE_CHECKING:
    import socketio

    from openhands.core.config import OpenHandsConfig
    from openhands.server.monitoring import MonitoringListener
    from openhands.server.server_config import ServerConfig
    from openhands.storage.conversation.conversation_store import ConversationStore
    from openhands.storage.files import FileStore


class ConversationManagerError(Exception):
    """Base of the manager's own errors."""


class NoConnectedSessionError(ConversationManagerError):
    """The socket never joined a conversation, or its session was closed."""

    def __init__(self, connection_id: str) -> None:
        super().__init__(f"no_connected_session: {connection_id}")


class NoConversationError(ConversationManagerError):
    """No agent loop is running for the conversation."""

    def __init__(self, sid: str) -> None:
        super().__init__(f"no_conversation: {sid}")


@dataclass
class AgentLoopInfo:
    """A running (or starting) agent loop; field order of the reference's dataclass."""

    conversation_id: str
    url: str | None
    session_api_key: str | None
    event_store: EventStore | None = None
    status: ConversationStatus = ConversationStatus.RUNNING
    runtime_status: str | None = None


class ConversationManager(ABC):
    # Where running conversations keep their metadata (title, cost, last update): the app
    # assigns its configured store here after ``get_instance``, whatever the manager class.
    conversation_store: ConversationStore

    @classmethod
    @abstractmethod
    def get_instance(
        cls,
        sio: socketio.AsyncServer,
        config: OpenHandsConfig,
        file_store: FileStore,
        server_config: ServerConfig,
        monitoring_listener: MonitoringListener,
    ) -> ConversationManager:
        """The manager of an app (the ``conversation_manager_class`` extension point)."""

    async def __aenter__(self) -> ConversationManager:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        return None

    @abstractmethod
    async def attach_to_conversation(
        self, sid: str, user_id: str | None = None
    ) -> ServerConversation | None:
        """A handle for per-conversation routes; None if it does not exist or has no sandbox."""

    @abstractmethod
    async def detach_from_conversation(self, conversation: ServerConversation) -> None: ...

    @abstractmethod
    async def join_conversation(
        self,
        sid: str,
        connection_id: str,
        init_data: ConversationInitData,
        user_id: str | None,
        latest_event_id: int = -1,
    ) -> AgentLoopInfo:
        """Replay to the socket, join it to the room and start the loop if needed."""

    def metadata_lock(self, sid: str) -> asyncio.Lock:
        """The lock every read-modify-write of ``sid``'s metadata holds (no lost updates)."""
        locks: dict[str, asyncio.Lock] = self.__dict__.setdefault("_metadata_locks", {})
        return locks.setdefault(sid, asyncio.Lock())

    async def is_agent_loop_running(self, sid: str) -> bool:
        return bool(await self.get_running_agent_loops(filter_to_sids={sid}))

    @abstractmethod
    async def get_running_agent_loops(
        self, user_id: str | None = None, filter_to_sids: set[str] | None = None
    ) -> set[str]: ...

    @abstractmethod
    async def get_connections(
        self, user_id: str | None = None, filter_to_sids: set[str] | None = None
    ) -> dict[str, str]:
        """connection id → conversation id."""

    @abstractmethod
    async def get_agent_loop_info(
        self, user_id: str | None = None, filter_to_sids: set[str] | None = None
    ) -> list[AgentLoopInfo]: ...

    @abstractmethod
    async def maybe_start_agent_loop(
        self,
        sid: str,
        init_data: ConversationInitData,
        user_id: str | None,
        initial_user_msg: MessageAction | None = None,
        replay_json: str | None = None,
    ) -> AgentLoopInfo: ...

    @abstractmethod
    async def send_to_event_stream(self, connection_id: str, data: dict[str, Any]) -> None: ...

    @abstractmethod
    async def send_event_to_conversation(self, sid: str, data: dict[str, Any]) -> None: ...

    @abstractmethod
    async def disconnect_from_session(self, connection_id: str) -> None: ...

    @abstractmethod
    async def close_session(self, sid: str) -> None: ...

    @abstractmethod
    async def send_title_update(self, sid: str, title: str) -> None:
        """Tell the conversation's room that its title changed."""

    @abstractmethod
    def get_agent_session(self, sid: str) -> Any | None:
        """The running AgentSession of ``sid`` (for microagents), or None."""
