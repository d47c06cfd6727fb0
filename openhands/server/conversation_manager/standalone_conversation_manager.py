"""StandaloneConversationManager: every agent loop in this process (server-api §8)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import socketio

from openhands.core.config import OpenHandsConfig
from openhands.core.schema import AgentState
from openhands.events.action import MessageAction
from openhands.events.event_store import EventStore
from openhands.server.conversation_manager.conversation_manager import (
    AgentLoopInfo,
    ConversationManager,
    NoConnectedSessionError,
    NoConversationError,
)
from openhands.server.models.socket import StatusUpdate
from openhands.server.monitoring import MonitoringListener
from openhands.server.server_config import ServerConfig
from openhands.server.session.agent_session import AgentSession
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.server.session.delivery import (
    RoomDelivery,
    room_name,
    stream_to_connection,
)
from openhands.server.session.event_rules import iter_replay_payloads
from openhands.server.session.metadata_updater import MetadataUpdater
from openhands.server.session.server_conversation import ServerConversation
from openhands.server.session.session import Session
from openhands.storage.conversation.conversation_store import ConversationStore
from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.data_models.conversation_status import ConversationStatus
from openhands.storage.files import FileStore
from openhands.storage.locations import session_exists

if TYPE_CHECKING:
    from openhands.runtime.impl.docker.sandboxes import DockerSandboxes

logger = logging.getLogger(__name__)

TOO_MANY_CONVERSATIONS_ID = "AGENT_ERROR$TOO_MANY_CONVERSATIONS"
TOO_MANY_CONVERSATIONS_MESSAGE = (
    "Too many conversations at once. If you are still using this one, try reactivating it "
    "by prompting the agent to continue"
)
CLOSE_TIMEOUT_SECONDS = 90.0
DEFAULT_CLEANUP_INTERVAL_SECONDS = 15.0
# How long a shutdown waits for sandboxes that are still being torn down.
TEARDOWN_WAIT_SECONDS = 30.0
# How long a start waits for the teardown of the same conversation's previous sandbox.
START_AFTER_TEARDOWN_SECONDS = 180.0
_OLDEST = datetime.min


@dataclass(eq=False)
class ConversationRecord:
    """Everything the manager holds for one conversation.

    ``close_session`` pops the record and closes what it holds. Until then it lives as long
    as something uses it: an agent loop, a runtime attached for REST calls, or sockets (a
    joining socket needs the delivery before the loop exists). The cleanup task drops
    records that hold none of these any more.
    """

    sid: str
    # Live payloads to the conversation's room; the loop's session sends through it and
    # joining sockets are held in it while their replay runs.
    delivery: RoomDelivery
    session: Session | None = None
    start: asyncio.Task[None] | None = None
    updater: MetadataUpdater | None = None
    # A runtime in attach mode that REST calls share while no loop runs; ``rest_users``
    # counts the requests using it, and the cleanup task disconnects it once that is 0.
    rest: ServerConversation | None = None
    rest_users: int = 0
    # Set when the record is closed; done once the loop's sandbox is torn down.
    gone: asyncio.Future[None] | None = None


class StandaloneConversationManager(ConversationManager):
    def __init__(
        self,
        sio: socketio.AsyncServer,
        config: OpenHandsConfig,
        file_store: FileStore,
        server_config: ServerConfig | None = None,
        monitoring_listener: MonitoringListener | None = None,
        *,
        cleanup_interval: float | None = None,
        agent_session_cls: type[AgentSession] = AgentSession,
    ) -> None:
        # The positional order is the reference's dataclass order, so extensions that build
        # the manager themselves keep working.
        self.sio = sio
        self.config = config
        self.file_store = file_store
        self.server_config = server_config
        if cleanup_interval is None:
            # An extension's own server config may lack the field: keep the default period.
            cleanup_interval = getattr(
                server_config, "cleanup_interval_seconds", DEFAULT_CLEANUP_INTERVAL_SECONDS
            )
        self.cleanup_interval = cleanup_interval
        self.agent_session_cls = agent_session_cls
        self.monitoring_listener = monitoring_listener or MonitoringListener()
        # The app replaces it with the configured store when that is not the file store.
        self.conversation_store: ConversationStore = FileConversationStore(file_store)
        self._conversations: dict[str, ConversationRecord] = {}
        # Socket (connection id) → the conversation it joined.
        self._connections: dict[str, str] = {}
        # Closed records whose sandbox is still being torn down, or whose REST runtime is
        # still used by a request. A new start of the same conversation waits for their
        # teardown (it would attach to a sandbox that is going away), and so does shutdown
        # (a stop just before it would leave the sandbox, a container or local tmux and
        # bash, behind).
        self._closing: set[ConversationRecord] = set()
        self._lock = asyncio.Lock()  # guards the REST runtimes (``rest``, ``rest_users``)
        self._start_lock = asyncio.Lock()
        self._cleanup_task: asyncio.Task[None] | None = None
        # The server's Docker sandbox services (warm pool, clean-up); set by the app.
        self.docker_sandboxes: DockerSandboxes | None = None

    # --- lifecycle -----------------------------------------------------------------------

    @classmethod
    def get_instance(
        cls,
        sio: socketio.AsyncServer,
        config: OpenHandsConfig,
        file_store: FileStore,
        server_config: ServerConfig,
        monitoring_listener: MonitoringListener,
    ) -> StandaloneConversationManager:
        return cls(sio, config, file_store, server_config, monitoring_listener)

    async def __aenter__(self) -> StandaloneConversationManager:
        self._cleanup_task = asyncio.create_task(self._cleanup_stale(), name="conversation-cleanup")
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._cleanup_task is not None:
            self._cleanup_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._cleanup_task
            self._cleanup_task = None
        handles: list[ServerConversation] = []
        for record in [*self._conversations.values(), *self._closing]:
            if record.rest is not None:
                handles.append(record.rest)
                record.rest, record.rest_users = None, 0
                self._settle(record)
        for conversation in handles:
            await conversation.disconnect()
        running = [sid for sid, rec in self._conversations.items() if rec.session is not None]
        await asyncio.gather(*(self.close_session(sid) for sid in running), return_exceptions=True)
        teardowns = [record.gone for record in self._closing if record.gone is not None]
        if pending := [gone for gone in teardowns if not gone.done()]:
            await asyncio.wait(pending, timeout=TEARDOWN_WAIT_SECONDS)

    @property
    def cleanup_running(self) -> bool:
        return self._cleanup_task is not None and not self._cleanup_task.done()

    # --- attach / detach (per-conversation REST routes) ----------------------------------

    async def attach_to_conversation(
        self, sid: str, user_id: str | None = None
    ) -> ServerConversation | None:
        if not await asyncio.to_thread(session_exists, sid, self.file_store, user_id):
            return None
        session = self._session(sid)
        if session is not None:
            # A running loop: borrow its stream and runtime; nothing to release later.
            return ServerConversation(
                sid,
                self.file_store,
                self.config,
                user_id,
                event_stream=session.event_stream,
                runtime=session.agent_session.runtime,
                security_analyzer=session.agent_session.security_analyzer,
                borrowed=True,
            )
        async with self._lock:
            record = self._conversations.get(sid)
            if record is not None and record.rest is not None:
                record.rest_users += 1  # from 0: an idle runtime the cleanup has not closed
                return record.rest
            attached = await self._attach_runtime(sid, user_id)
            if attached is None:
                return None
            record = self._record(sid)
            record.rest, record.rest_users = attached, 1
            return attached

    async def _attach_runtime(self, sid: str, user_id: str | None) -> ServerConversation | None:
        """A runtime in attach-to-existing mode; None when no sandbox answers."""
        conversation: ServerConversation | None = None
        try:
            conversation = await asyncio.to_thread(
                ServerConversation, sid, self.file_store, self.config, user_id
            )
            await conversation.connect()
        except Exception as error:
            logger.info("No sandbox to attach to for %s: %s", sid, error)
            if conversation is not None:
                await conversation.disconnect()
            return None
        return conversation

    async def detach_from_conversation(self, conversation: ServerConversation) -> None:
        if not conversation.owns_runtime:
            return
        async with self._lock:
            record = self._conversations.get(conversation.sid)
            if record is not None and record.rest is conversation:
                record.rest_users -= 1  # at 0 it stays for reuse until the next cleanup
                return
            # The conversation was closed while this request used the runtime: nobody can
            # reuse it now, so the last request closes it.
            record = next((r for r in self._closing if r.rest is conversation), None)
            if record is None:
                return  # closed at shutdown already
            record.rest_users -= 1
            if record.rest_users > 0:
                return
            record.rest = None
            self._settle(record)
        await conversation.disconnect()

    # --- records -------------------------------------------------------------------------

    def _record(self, sid: str) -> ConversationRecord:
        record = self._conversations.get(sid)
        if record is None:
            record = ConversationRecord(sid, RoomDelivery(self.sio, sid, self._room_members))
            self._conversations[sid] = record
        return record

    def _session(self, sid: str) -> Session | None:
        record = self._conversations.get(sid)
        return record.session if record is not None else None

    def _delivery(self, sid: str) -> RoomDelivery:
        """The room delivery of ``sid``; one that is not kept when no record exists (then no
        socket is held or joined, so it behaves like a kept one)."""
        record = self._conversations.get(sid)
        if record is not None:
            return record.delivery
        return RoomDelivery(self.sio, sid, self._room_members)

    def _settle(self, record: ConversationRecord) -> None:
        """Forget a closed record once its teardown is over and no request uses its runtime."""
        if (record.gone is None or record.gone.done()) and record.rest is None:
            self._closing.discard(record)

    # --- sockets -------------------------------------------------------------------------

    def _room_members(self, room: str) -> list[str]:
        return [sid for sid, _ in self.sio.manager.get_participants("/", room)]

    async def join_conversation(
        self,
        sid: str,
        connection_id: str,
        init_data: ConversationInitData,
        user_id: str | None,
        latest_event_id: int = -1,
    ) -> AgentLoopInfo:
        delivery = self._record(sid).delivery
        delivery.hold(connection_id)
        try:
            await self.sio.enter_room(connection_id, room_name(sid))
            self._connections[connection_id] = sid
            last_id = await self._replay(sid, connection_id, user_id, latest_event_id + 1)
        except BaseException:
            delivery.forget(connection_id)
            raise
        await delivery.release(connection_id, last_id)
        return await self.maybe_start_agent_loop(sid, init_data, user_id)

    async def _replay(self, sid: str, connection_id: str, user_id: str | None, start: int) -> int:
        """Send stored events from ``start`` on to one socket; returns the last id considered."""
        store = EventStore(sid, self.file_store, user_id)
        end = await asyncio.to_thread(lambda: store.cur_id - 1)
        # Streamed: each event is sent as soon as it is read (in order).
        await stream_to_connection(
            self.sio,
            connection_id,
            lambda: iter_replay_payloads(store.search_events(start_id=max(start, 0), end_id=end)),
        )
        return end

    async def get_connections(
        self, user_id: str | None = None, filter_to_sids: set[str] | None = None
    ) -> dict[str, str]:
        return {
            connection_id: sid
            for connection_id, sid in self._connections.items()
            if (filter_to_sids is None or sid in filter_to_sids)
            and (user_id is None or self._owner(sid) in (None, user_id))
        }

    def _owner(self, sid: str) -> str | None:
        session = self._session(sid)
        return session.user_id if session is not None else None

    async def send_to_event_stream(self, connection_id: str, data: dict[str, Any]) -> None:
        sid = self._connections.get(connection_id)
        if sid is None:
            raise NoConnectedSessionError(connection_id)
        await self.send_event_to_conversation(sid, data)

    async def send_event_to_conversation(self, sid: str, data: dict[str, Any]) -> None:
        session = self._session(sid)
        if session is None:
            raise NoConversationError(sid)
        await session.dispatch(data)

    async def disconnect_from_session(self, connection_id: str) -> None:
        sid = self._connections.pop(connection_id, None)
        record = self._conversations.get(sid) if sid is not None else None
        if record is not None:
            record.delivery.forget(connection_id)

    async def send_title_update(self, sid: str, title: str) -> None:
        session = self._session(sid)
        if session is not None:
            session.send_title(title)
            return
        payload = {
            "status_update": True,
            "type": "info",
            "message": sid,
            "conversation_title": title,
        }
        await self._delivery(sid).send(payload)

    # --- agent loops ---------------------------------------------------------------------

    async def get_running_agent_loops(
        self, user_id: str | None = None, filter_to_sids: set[str] | None = None
    ) -> set[str]:
        return {
            sid
            for sid, record in self._conversations.items()
            if record.session is not None
            and (filter_to_sids is None or sid in filter_to_sids)
            and (user_id is None or record.session.user_id == user_id)
        }

    async def get_agent_loop_info(
        self, user_id: str | None = None, filter_to_sids: set[str] | None = None
    ) -> list[AgentLoopInfo]:
        sids = await self.get_running_agent_loops(user_id, filter_to_sids)
        return [self._loop_info(session) for sid in sids if (session := self._session(sid))]

    def get_agent_session(self, sid: str) -> AgentSession | None:
        session = self._session(sid)
        return session.agent_session if session is not None else None

    def _loop_info(self, session: Session) -> AgentLoopInfo:
        return AgentLoopInfo(
            conversation_id=session.sid,
            url=f"/api/conversations/{session.sid}",
            session_api_key=None,
            event_store=session.event_stream,
            status=session.status,
            runtime_status=session.runtime_status,
        )

    async def maybe_start_agent_loop(
        self,
        sid: str,
        init_data: ConversationInitData,
        user_id: str | None,
        initial_user_msg: MessageAction | None = None,
        replay_json: str | None = None,
    ) -> AgentLoopInfo:
        async with self._start_lock:
            record = self._conversations.get(sid)
            session = record.session if record is not None else None
            if record is not None and session is not None and _start_failed(record, session):
                # A failed start is not a loop to reuse: start afresh (its sandbox is torn
                # down first, and the new start waits for that).
                await self.close_session(sid)
                session = None
            if session is None:
                await self._make_room(user_id)
                record = self._record(sid)  # again: the awaits above may have closed it
                session = self._create_session(record, init_data, user_id)
                record.start = asyncio.create_task(
                    self._start_after_teardown(session, init_data, initial_user_msg, replay_json),
                    name=f"agent-start-{sid}",
                )
        return self._loop_info(session)

    async def _start_after_teardown(
        self,
        session: Session,
        init_data: ConversationInitData,
        initial_user_msg: MessageAction | None,
        replay_json: str | None,
    ) -> None:
        """Start a session once the previous sandbox of its conversation is gone."""
        await self.wait_for_teardown(session.sid)
        if not session.is_alive:
            return  # stopped while it waited
        await session.initialize_agent(init_data, initial_user_msg, replay_json)

    async def wait_for_teardown(
        self, sid: str, timeout: float = START_AFTER_TEARDOWN_SECONDS
    ) -> None:
        """Wait until no teardown of ``sid``'s sandbox is in flight (other conversations'
        teardowns are not waited for)."""
        deadline = time.monotonic() + timeout
        while True:
            pending = [
                record.gone
                for record in self._closing
                if record.sid == sid and record.gone is not None and not record.gone.done()
            ]
            if not pending:
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                logger.warning("The sandbox teardown of %s is still running; starting anyway", sid)
                return
            await asyncio.wait(pending, timeout=remaining)

    def _create_session(
        self, record: ConversationRecord, init_data: ConversationInitData, user_id: str | None
    ) -> Session:
        sid = record.sid
        session = Session(
            sid,
            self.config,
            self.file_store,
            record.delivery,
            user_id=user_id,
            agent_session_cls=self.agent_session_cls,
            monitoring_listener=self.monitoring_listener,
        )
        session.agent_session.docker_sandboxes = self.docker_sandboxes
        updater = MetadataUpdater(
            sid,
            self.conversation_store,
            asyncio.get_running_loop(),
            init_data,
            on_title=session.send_title,
            branch_of=lambda: _current_branch(session),
            lock=self.metadata_lock(sid),
        )
        session.event_stream.subscribe("server", updater.on_event, f"{sid}_metadata")
        record.session, record.updater = session, updater
        return session

    async def _make_room(self, user_id: str | None) -> None:
        """Close the least recently updated loops until one more fits under the limit."""
        limit = self.config.max_concurrent_conversations
        while True:
            sids = await self.get_running_agent_loops(user_id)
            if len(sids) < limit or not sids:
                return
            oldest = await self._least_recently_updated(sids)
            payload = StatusUpdate(
                type="error", id=TOO_MANY_CONVERSATIONS_ID, message=TOO_MANY_CONVERSATIONS_MESSAGE
            ).model_dump()
            await self._delivery(oldest).send(payload)
            await self.close_session(oldest)

    async def _least_recently_updated(self, sids: set[str]) -> str:
        async def updated(sid: str) -> datetime:
            try:
                metadata = await self.conversation_store.get_metadata(sid)
            except (FileNotFoundError, ValueError):
                return _OLDEST
            stamp = metadata.last_updated_at
            return stamp.replace(tzinfo=None) if stamp is not None else _OLDEST

        stamps = {sid: await updated(sid) for sid in sids}
        return min(sorted(stamps), key=lambda sid: stamps[sid])

    async def close_session(self, sid: str) -> None:
        record = self._conversations.get(sid)
        if record is None or record.session is None:
            return  # no loop: nothing to close (sockets and REST calls keep their record)
        del self._conversations[sid]
        session = record.session
        # From here until its sandbox is gone, a new start of this conversation waits
        # (``wait_for_teardown``): it must not attach to the sandbox being stopped.
        gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        record.gone = gone
        self._closing.add(record)
        gone.add_done_callback(lambda _: self._settle(record))
        # An idle REST runtime goes now (nobody can reuse it), one in use when its last
        # request ends (``detach_from_conversation``).
        idle_rest = None
        if record.rest is not None and record.rest_users == 0:
            idle_rest, record.rest = record.rest, None
        try:
            for connection_id, joined in list(self._connections.items()):
                if joined == sid:
                    self._connections.pop(connection_id, None)
                    record.delivery.forget(connection_id)
                    with contextlib.suppress(Exception):
                        await self.sio.disconnect(connection_id)
            if record.updater is not None:
                await record.updater.close()
            await session.close()
        finally:
            teardown = session.agent_session.teardown
            if teardown is not None and not teardown.done():
                teardown.add_done_callback(lambda _: _resolve(gone))
            else:
                _resolve(gone)
            if idle_rest is not None:
                await idle_rest.disconnect()

    # --- cleanup -------------------------------------------------------------------------

    async def _cleanup_stale(self) -> None:
        while True:
            await asyncio.sleep(self.cleanup_interval)
            try:
                await self._cleanup_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("Conversation cleanup failed")

    async def _cleanup_once(self) -> None:
        async with self._lock:
            idle: list[ServerConversation] = []
            for record in self._conversations.values():
                if record.rest is not None and record.rest_users == 0:
                    idle.append(record.rest)
                    record.rest = None
        for conversation in idle:
            await conversation.disconnect()
        connected = set(self._connections.values())
        unused = [
            sid
            for sid, record in self._conversations.items()
            if record.session is None
            and record.rest is None
            and record.delivery.idle
            and sid not in connected
        ]
        for sid in unused:
            del self._conversations[sid]
        close_delay = self.config.sandbox.close_delay
        if not close_delay:
            return  # idle loops are kept; the task itself keeps running (reference QUIRK fixed)
        cutoff = time.time() - close_delay
        stale = [
            sid
            for sid, record in self._conversations.items()
            if (session := record.session) is not None
            and session.last_active_ts < cutoff
            and session.agent_state() not in (AgentState.RUNNING, None)
            and sid not in connected
        ]
        if stale:
            await asyncio.wait_for(
                asyncio.gather(*(self.close_session(sid) for sid in stale), return_exceptions=True),
                CLOSE_TIMEOUT_SECONDS,
            )


def _start_failed(record: ConversationRecord, session: Session) -> bool:
    task = record.start
    # Only an explicit failure restarts: an extension's agent session class may not track it.
    failed = getattr(session.agent_session, "start_failed", False)
    return (task is None or task.done()) and failed is True


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _current_branch(session: Session) -> str | None:
    agent_session = session.agent_session
    runtime = agent_session.runtime
    if runtime is None:
        return None
    return runtime.get_workspace_branch(agent_session.repository_directory)


__all__ = ["ConversationStatus", "StandaloneConversationManager"]
