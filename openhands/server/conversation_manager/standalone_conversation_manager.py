"""StandaloneConversationManager: the conversation manager of a server (server-api §8).

A facade over three parts, each with one job, and an ownership policy:

- ``loops`` (``LoopRegistry``): the agent loops running here, their start and stop, the
  concurrency limit (``max_concurrent_conversations``) and eviction;
- ``rest_runtimes`` (``RestRuntimePool``): the sandboxes REST calls borrow while no loop
  runs (``attach_to_conversation`` / ``detach_from_conversation``);
- ``rooms`` (``SocketRooms``): the sockets of this process, the room each joined, replay
  and delivery;
- ``ownership``: which node runs a conversation. ``LocalOwnership`` (the default) says
  "here"; the clustered manager plugs in Redis leases.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any

import socketio

from openhands.core.config import OpenHandsConfig
from openhands.core.schema import AgentState
from openhands.events.action import MessageAction
from openhands.runtime.utils.teardowns import Teardowns
from openhands.server.conversation_manager.conversation_manager import (
    AgentLoopInfo,
    ConversationManager,
    NoConnectedSessionError,
    NoConversationError,
)
from openhands.server.conversation_manager.loop_registry import (
    LoopRegistry,
    RunningLoop,
    oldest_first,
)
from openhands.server.conversation_manager.ownership import LocalOwnership, OwnershipPolicy
from openhands.server.conversation_manager.rest_runtime_pool import RestRuntimePool
from openhands.server.conversation_manager.socket_rooms import SocketRooms
from openhands.server.models.socket import StatusUpdate
from openhands.server.monitoring import MonitoringListener
from openhands.server.server_config import ServerConfig
from openhands.server.session.agent_session import AgentSession
from openhands.server.session.conversation_init_data import ConversationInitData
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
        ownership: OwnershipPolicy | None = None,
        teardowns: Teardowns | None = None,
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
        self.loops = LoopRegistry(teardowns) if teardowns is not None else LoopRegistry()
        self.rooms = SocketRooms(sio, file_store)
        # Looked up at call time, so a test (or an extension) can replace ``_attach_runtime``.
        self.rest_runtimes = RestRuntimePool(lambda sid, user: self._attach_runtime(sid, user))
        self.ownership: OwnershipPolicy = ownership or LocalOwnership()
        self.rooms.extra_members = self.ownership.extra_members
        # Closes of evicted or failed loops, run beside the start that replaced them.
        self._closes: set[asyncio.Task[None]] = set()
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
        await self.ownership.open(self)
        self._cleanup_task = asyncio.create_task(self._cleanup_stale(), name="conversation-cleanup")
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._cleanup_task is not None:
            self._cleanup_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._cleanup_task
            self._cleanup_task = None
        await self.ownership.quiesce()
        try:
            await self.rest_runtimes.close_all()
            running = [sid for sid, _ in self.loops.items()]
            await asyncio.gather(
                *(self.close_session(sid) for sid in running), return_exceptions=True
            )
            if self._closes:
                await asyncio.gather(*self._closes, return_exceptions=True)
            await self.loops.wait_for_all_teardowns(TEARDOWN_WAIT_SECONDS)
        finally:
            await self.ownership.close()

    @property
    def cleanup_running(self) -> bool:
        return self._cleanup_task is not None and not self._cleanup_task.done()

    @property
    def _local_connection_id_to_session_id(self) -> dict[str, str]:
        """The reference's name of the socket → conversation map."""
        return self.rooms.connections

    # --- attach / detach (per-conversation REST routes) ----------------------------------

    async def attach_to_conversation(
        self, sid: str, user_id: str | None = None
    ) -> ServerConversation | None:
        if not await asyncio.to_thread(session_exists, sid, self.file_store, user_id):
            return None
        session = self.loops.session(sid)
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
        if await self.ownership.runs_elsewhere(sid):
            # Its sandbox is reached from the node running the loop: a second event stream
            # here would write into that node's conversation.
            return None
        return await self.rest_runtimes.borrow(sid, user_id)

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
        if conversation.owns_runtime:
            await self.rest_runtimes.give_back(conversation)

    # --- sockets -------------------------------------------------------------------------

    async def join_conversation(
        self,
        sid: str,
        connection_id: str,
        init_data: ConversationInitData,
        user_id: str | None,
        latest_event_id: int = -1,
    ) -> AgentLoopInfo:
        elsewhere = await self.ownership.join_elsewhere(
            sid, connection_id, init_data, user_id, latest_event_id
        )
        if elsewhere is not None:
            return elsewhere
        await self.rooms.enter(sid, connection_id)
        try:
            last_id = await self._replay(sid, connection_id, user_id, latest_event_id + 1)
        except BaseException:
            self.rooms.abandon(sid, connection_id)
            raise
        await self.rooms.release(sid, connection_id, last_id)
        return await self.maybe_start_agent_loop(sid, init_data, user_id)

    async def _replay(self, sid: str, connection_id: str, user_id: str | None, start: int) -> int:
        """Send stored events from ``start`` on to one socket; returns the last id considered."""
        last_id = await self.rooms.replay(sid, connection_id, user_id, start)
        self.ownership.replayed(connection_id, last_id)
        return last_id

    async def get_connections(
        self, user_id: str | None = None, filter_to_sids: set[str] | None = None
    ) -> dict[str, str]:
        return {
            connection_id: sid
            for connection_id, sid in self.rooms.connections.items()
            if (filter_to_sids is None or sid in filter_to_sids)
            and (user_id is None or self._owner(sid) in (None, user_id))
        }

    def _owner(self, sid: str) -> str | None:
        session = self.loops.session(sid)
        return session.user_id if session is not None else None

    async def send_to_event_stream(self, connection_id: str, data: dict[str, Any]) -> None:
        sid = self.rooms.connections.get(connection_id)
        if sid is None:
            raise NoConnectedSessionError(connection_id)
        await self.send_event_to_conversation(sid, data)

    async def send_event_to_conversation(self, sid: str, data: dict[str, Any]) -> None:
        session = self.loops.session(sid)
        if session is None:
            await self.ownership.dispatch_elsewhere(sid, data)
            return
        await session.dispatch(data)

    async def disconnect_from_session(self, connection_id: str) -> None:
        sid = self.rooms.leave(connection_id)
        await self.ownership.disconnected(connection_id, sid)

    async def send_title_update(self, sid: str, title: str) -> None:
        session = self.loops.session(sid)
        if session is not None:
            session.send_title(title)
            return
        payload = {
            "status_update": True,
            "type": "info",
            "message": sid,
            "conversation_title": title,
        }
        await self.rooms.send(sid, payload)

    # --- agent loops ---------------------------------------------------------------------

    async def get_running_agent_loops(
        self, user_id: str | None = None, filter_to_sids: set[str] | None = None
    ) -> set[str]:
        remote = await self.ownership.remote_loops(user_id, filter_to_sids)
        local = self.loops.running(user_id, filter_to_sids)
        return local | {info.conversation_id for info in remote}

    async def get_agent_loop_info(
        self, user_id: str | None = None, filter_to_sids: set[str] | None = None
    ) -> list[AgentLoopInfo]:
        local = self.loops.running(user_id, filter_to_sids)
        infos = [self._loop_info(session) for sid in local if (session := self.loops.session(sid))]
        remote = await self.ownership.remote_loops(user_id, filter_to_sids)
        return infos + [info for info in remote if info.conversation_id not in local]

    def get_agent_session(self, sid: str) -> AgentSession | None:
        session = self.loops.session(sid)
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
        elsewhere = await self.ownership.claim(sid, init_data, user_id)
        if elsewhere is not None:
            return elsewhere
        info = await self._start_here(sid, init_data, user_id, initial_user_msg, replay_json)
        await self.ownership.claimed(sid, user_id)
        return info

    async def _start_here(
        self,
        sid: str,
        init_data: ConversationInitData,
        user_id: str | None,
        initial_user_msg: MessageAction | None = None,
        replay_json: str | None = None,
    ) -> AgentLoopInfo:
        """Start ``sid``'s loop in this process unless it runs (or starts) already.

        The lock makes "is it running? else register a new one" one step. Loops closed to
        make room (or a failed start of ``sid``) are only taken out of the registry under
        it; their closing runs beside, so no socket join waits for another conversation's
        start or stop (an evicted loop still starting may take up to 90 s to close)."""
        async with self.loops.start_lock:
            loop = self.loops.get(sid)
            closing: list[asyncio.Task[None]] = []
            if loop is not None and loop.start_failed:
                # Not a loop to reuse: start afresh once its sandbox is torn down.
                closing.append(self._close_beside(sid))
                loop = None
            if loop is None:
                closing += await self._make_room(user_id)
                loop = self._create_loop(sid, init_data, user_id)
                loop.start = asyncio.create_task(
                    self._start_when_clear(
                        loop.session, closing, init_data, initial_user_msg, replay_json
                    ),
                    name=f"agent-start-{sid}",
                )
            session = loop.session
        return self._loop_info(session)

    async def _start_when_clear(
        self,
        session: Session,
        closing: list[asyncio.Task[None]],
        init_data: ConversationInitData,
        initial_user_msg: MessageAction | None,
        replay_json: str | None,
    ) -> None:
        """Start a session once the loops it replaced are closed and the previous sandbox
        of its conversation is gone."""
        if closing:
            await asyncio.gather(*closing, return_exceptions=True)
        await self.wait_for_teardown(session.sid)
        if not session.is_alive:
            return  # stopped while it waited
        await session.initialize_agent(init_data, initial_user_msg, replay_json)

    async def wait_for_teardown(
        self, sid: str, timeout: float = START_AFTER_TEARDOWN_SECONDS
    ) -> None:
        """Wait until no teardown of ``sid``'s sandbox is in flight (other conversations'
        teardowns are not waited for)."""
        await self.loops.wait_for_teardown(sid, timeout)

    def _create_loop(
        self, sid: str, init_data: ConversationInitData, user_id: str | None
    ) -> RunningLoop:
        session = Session(
            sid,
            self.config,
            self.file_store,
            self.rooms.delivery(sid),
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
        loop = RunningLoop(session, updater)
        self.loops.add(sid, loop)
        return loop

    async def _make_room(self, user_id: str | None) -> list[asyncio.Task[None]]:
        """Tell the least recently updated loops that they close, so one more fits under
        the limit; returns their closes (running beside)."""
        sids = await self.get_running_agent_loops(user_id)
        excess = len(sids) - self.config.max_concurrent_conversations + 1
        if excess <= 0 or not sids:
            return []
        payload = StatusUpdate(
            type="error", id=TOO_MANY_CONVERSATIONS_ID, message=TOO_MANY_CONVERSATIONS_MESSAGE
        ).model_dump()
        closing: list[asyncio.Task[None]] = []
        for oldest in (await oldest_first(self.conversation_store, sids))[:excess]:
            await self.rooms.send(oldest, payload)
            closing.append(self._close_beside(oldest))
        return closing

    def _close_beside(self, sid: str) -> asyncio.Task[None]:
        """Close ``sid`` in a task of its own; a local loop leaves the registry right now."""
        loop = self.loops.detach(sid)
        work = self._finish_close(sid, loop) if loop is not None else self.close_session(sid)
        task = asyncio.create_task(work, name=f"agent-close-{sid}")
        self._closes.add(task)
        task.add_done_callback(self._close_done)
        return task

    def _close_done(self, task: asyncio.Task[None]) -> None:
        self._closes.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            logger.error("Closing a conversation failed: %r", error)

    async def close_session(self, sid: str) -> None:
        loop = self.loops.detach(sid)
        if loop is None:
            await self.ownership.close_elsewhere(sid)
            return
        await self._finish_close(sid, loop)

    async def _close_session(self, sid: str) -> None:
        """The reference's name: drop every socket of ``sid``, then close its loop."""
        await self.rooms.disconnect_all(sid)
        await self.close_session(sid)

    async def _finish_close(self, sid: str, loop: RunningLoop) -> None:
        """Close a loop already taken out of the registry (its teardown is being tracked)."""
        try:
            await self.ownership.before_close(sid)
            # Nobody may reuse a REST runtime of a closed loop: an idle one goes now, one
            # in use when its last request ends.
            await self.rest_runtimes.retire(sid)
            await self.rooms.disconnect_all(sid)
            if loop.updater is not None:
                await loop.updater.close()
            await loop.session.close()
        finally:
            self.loops.teardown_over_when_done(sid, loop)
            await self.ownership.released(sid)

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
        await self.rest_runtimes.close_idle()
        self.rooms.drop_unused(
            keep=lambda sid: self.loops.get(sid) is not None or self.rest_runtimes.holds(sid)
        )
        close_delay = self.config.sandbox.close_delay
        if not close_delay:
            return  # idle loops are kept; the task itself keeps running (reference QUIRK fixed)
        cutoff = time.time() - close_delay
        connected = set(self.rooms.connections.values())
        stale = [
            sid
            for sid, loop in self.loops.items()
            if loop.session.last_active_ts < cutoff
            and loop.session.agent_state() not in (AgentState.RUNNING, None)
            and sid not in connected
        ]
        if stale:
            await asyncio.wait_for(
                asyncio.gather(*(self.close_session(sid) for sid in stale), return_exceptions=True),
                CLOSE_TIMEOUT_SECONDS,
            )


def _current_branch(session: Session) -> str | None:
    agent_session = session.agent_session
    runtime = agent_session.runtime
    if runtime is None:
        return None
    return runtime.get_workspace_branch(agent_session.repository_directory)


__all__ = [
    "ConversationStatus",
    "NoConversationError",
    "StandaloneConversationManager",
]
