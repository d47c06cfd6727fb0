"""Ownership by Redis leases: several server nodes behind one address.

The policy the clustered conversation manager plugs into the standalone one:

- **Ownership.** A conversation's agent loop runs on the node holding its lease
  (``conversation_leases``). Starting or joining on another node starts nothing when the
  owner is alive; when there is no owner, or it is dead, this node takes the lease and
  resumes the conversation from the shared store.
- **Forwarding.** User actions, messages and stops that reach a node which does not run
  the loop are sent to the owner (``cluster_bus``) and acknowledged once it applied them;
  when the owner is gone, this node takes over and applies them itself.
- **Sockets on other nodes.** A socket joining here while the loop runs elsewhere gets the
  seam-free hand-over through the owner's ``RoomDelivery``: the owner *holds* the
  connection, this node replays from the store, then the owner *releases* it after the
  replay's last id. The owner's emits reach the socket through the Socket.IO Redis manager.
- **Watching.** A node takes over the conversations its own sockets watch when their owner
  dies, and sends each socket what it missed (from the highest id it was sent).
- **Answers** about running loops (status, runtime status, the running list) come from the
  leases, so every node gives the same ones. A graceful shutdown releases the leases.
- **Routes.** ``owner_url`` names the node other nodes forward this conversation's routes
  to (``openhands.server.cluster_forwarding``); each node publishes its own
  ``OPENHANDS_NODE_URL``.

Known limit: the concurrency limit counts the whole cluster.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from openhands.server.conversation_manager.cluster_bus import ClusterBus, Message, NodeGoneError
from openhands.server.conversation_manager.conversation_leases import ConversationLeases, Lease
from openhands.server.conversation_manager.conversation_manager import (
    AgentLoopInfo,
    ConversationManagerError,
    NoConversationError,
)
from openhands.server.conversation_manager.ownership import OwnershipPolicy
from openhands.server.redis_socket_manager import RedisSocketManager
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.server.session.delivery import OH_EVENT, room_name
from openhands.server.session.user_actions import InvalidUserActionError
from openhands.storage.data_models.conversation_status import ConversationStatus

if TYPE_CHECKING:
    from openhands.server.conversation_manager.standalone_conversation_manager import (
        StandaloneConversationManager,
    )

logger = logging.getLogger(__name__)

NODE_URLS_KEY = "openhands:node-urls"  # hash: node id → the base URL other nodes reach it at
TICK_SECONDS = 1.0  # lease renewal and the watch of other nodes' conversations
CLAIM_GRACE_SECONDS = 120.0  # a lease taken for a start that has not created its loop yet
CLOSE_REQUEST_SECONDS = 150.0  # a remote stop waits for a start in flight (up to 90 s)
_ATTEMPTS = 3

# The start data of a conversation this node never started or joined (a takeover).
InitDataLoader = Callable[[str], Awaitable[tuple[ConversationInitData, str | None]]]


class LeaseOwnership(OwnershipPolicy):
    def __init__(
        self,
        sockets: RedisSocketManager,
        load_init_data: InitDataLoader,
        node_url: str | None = None,
    ) -> None:
        self.sockets = sockets
        self.bus = ClusterBus(sockets)
        self.node_id = self.bus.node_id
        self.node_url = node_url
        self._load_init_data = load_init_data
        self._manager: StandaloneConversationManager | None = None
        self._leases: ConversationLeases | None = None
        self._owned: dict[str, float] = {}  # conversations whose lease we hold → when taken
        # Sockets of other nodes in the rooms of conversations owned here (conversation →
        # connection → its node), so a stop disconnects them and dead nodes' are dropped.
        self._remote: dict[str, dict[str, str]] = {}
        # Sockets of this node whose conversation runs elsewhere → the owner they joined.
        self._joined_remote: dict[str, str] = {}
        # Local socket → the highest event id it was sent (replay or live).
        self._marks: dict[str, int] = {}
        self._init_data: dict[str, tuple[ConversationInitData, str | None]] = {}
        self._takeover_locks: dict[str, asyncio.Lock] = {}
        self._takeovers: dict[str, asyncio.Task[None]] = {}
        self._tick_task: asyncio.Task[None] | None = None
        sockets.observe_emits(self._on_emit)

    @property
    def manager(self) -> StandaloneConversationManager:
        if self._manager is None:
            raise RuntimeError("the clustered manager is not started")
        return self._manager

    @property
    def leases(self) -> ConversationLeases:
        if self._leases is None:
            raise RuntimeError("the clustered manager is not started")
        return self._leases

    # --- lifecycle -----------------------------------------------------------------------

    async def open(self, manager: StandaloneConversationManager) -> None:
        self._manager = manager
        await self.bus.start(self._handle_request)
        self._leases = ConversationLeases(self.bus.redis, self.node_id)
        if self.node_url is not None:
            await self.bus.redis.hset(NODE_URLS_KEY, self.node_id, self.node_url)  # type: ignore[misc]
        self._tick_task = asyncio.create_task(self._tick_forever(), name="cluster-tick")
        logger.info("Cluster node %s started", self.node_id)

    async def quiesce(self) -> None:
        if self._tick_task is not None:
            self._tick_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._tick_task
        for task in list(self._takeovers.values()):
            task.cancel()

    async def close(self) -> None:
        for sid in list(self._owned):
            with contextlib.suppress(Exception):
                await self.leases.release(sid)
        self._owned.clear()
        if self.node_url is not None:
            with contextlib.suppress(Exception):
                await self.bus.redis.hdel(NODE_URLS_KEY, self.node_id)  # type: ignore[misc]
        await self.bus.close()

    # --- ownership -----------------------------------------------------------------------

    def _runs_here(self, sid: str) -> bool:
        return self.manager.loops.get(sid) is not None

    async def _claim(self, sid: str, user_id: str | None) -> str:
        """Take ``sid``'s lease if nobody alive holds it; returns the owner."""
        owner = await self.leases.acquire(sid, user_id, ConversationStatus.STARTING.value)
        if owner != self.node_id and not await self.bus.alive({owner}):
            logger.info("Taking %s over from dead node %s", sid, owner)
            owner = await self.leases.acquire(
                sid, user_id, ConversationStatus.STARTING.value, replacing=owner
            )
        if owner == self.node_id:
            self._owned.setdefault(sid, time.monotonic())
        return owner

    async def _release(self, sid: str) -> None:
        if self._owned.pop(sid, None) is not None:
            await self.leases.release(sid)

    async def _live_leases(self, sids: set[str] | None) -> dict[str, Lease]:
        """Leases of loops running on other, living nodes."""
        leases = await self.leases.read(sids)
        others = {sid: lease for sid, lease in leases.items() if lease.node != self.node_id}
        alive = await self.bus.alive({lease.node for lease in others.values()})
        return {sid: lease for sid, lease in others.items() if lease.node in alive}

    async def claim(
        self, sid: str, init_data: ConversationInitData, user_id: str | None
    ) -> AgentLoopInfo | None:
        self._init_data[sid] = (init_data, user_id)
        if not self._runs_here(sid) and await self._claim(sid, user_id) != self.node_id:
            return await self._remote_info(sid)
        return None

    async def claimed(self, sid: str, user_id: str | None) -> None:
        if sid not in self._owned:  # a failed start was closed (lease and all) and redone
            await self._claim(sid, user_id)

    async def released(self, sid: str) -> None:
        # A failed start's close runs beside its replacement: that keeps the lease.
        if not self._runs_here(sid):
            await self._release(sid)

    async def _remote_info(self, sid: str) -> AgentLoopInfo:
        lease = (await self._live_leases({sid})).get(sid)
        if lease is None:
            return AgentLoopInfo(sid, f"/api/conversations/{sid}", None)
        return _lease_info(lease)

    # --- loops elsewhere -----------------------------------------------------------------

    async def remote_loops(
        self, user_id: str | None, filter_to_sids: set[str] | None
    ) -> list[AgentLoopInfo]:
        remote = await self._live_leases(filter_to_sids)
        return [
            _lease_info(lease)
            for lease in remote.values()
            if user_id is None or lease.user_id == user_id
        ]

    async def runs_elsewhere(self, sid: str) -> bool:
        return bool(await self._live_leases({sid}))

    async def owner_url(self, sid: str) -> str | None:
        if self._runs_here(sid):
            return None
        lease = (await self._live_leases({sid})).get(sid)
        if lease is None:
            return None
        url = await self.bus.redis.hget(NODE_URLS_KEY, lease.node)  # type: ignore[misc]
        if not url:
            return None
        return url.decode() if isinstance(url, bytes) else str(url)

    async def close_elsewhere(self, sid: str) -> None:
        lease = (await self.leases.read({sid})).get(sid)
        if lease is None:
            return
        if lease.node == self.node_id:
            await self._release(sid)  # taken for a start that made no loop
            return
        try:
            await self._request(lease.node, {"op": "close", "sid": sid}, CLOSE_REQUEST_SECONDS)
        except NodeGoneError:
            await self.leases.release(sid, lease.node)  # nothing runs: forget the dead lease

    async def before_close(self, sid: str) -> None:
        rooms = self.manager.rooms
        for connection_id in self._remote.pop(sid, {}):
            if rooms.has_delivery(sid):
                rooms.abandon(sid, connection_id)  # nothing is buffered for it any more
            with contextlib.suppress(Exception):
                await self.manager.sio.disconnect(connection_id)

    async def dispatch_elsewhere(self, sid: str, data: dict[str, Any]) -> None:
        for _ in range(_ATTEMPTS):
            session = self.manager.loops.session(sid)
            if session is not None:  # taken over meanwhile
                await session.dispatch(data)
                return
            lease = (await self.leases.read({sid})).get(sid)
            if lease is None or lease.node == self.node_id:
                raise NoConversationError(sid)
            try:
                await self._request(lease.node, {"op": "dispatch", "sid": sid, "data": data})
                return
            except NodeGoneError:
                await self._take_over(sid, lease.node)
        raise NoConversationError(sid)

    async def _request(self, node: str, message: Message, timeout: float = 60.0) -> None:
        """A request to another node; its error replies raised as the manager's errors."""
        reply = await self.bus.request(node, message, timeout)
        if reply.get("ok"):
            return
        text = str(reply.get("message", ""))
        sid = str(message.get("sid", ""))
        if reply.get("error") == "invalid":
            raise InvalidUserActionError(text)
        if reply.get("error") == "no_conversation":
            raise NoConversationError(sid)
        raise ConversationManagerError(f"node {node} failed: {text}")

    # --- sockets -------------------------------------------------------------------------

    def extra_members(self, sid: str) -> Iterable[str]:
        return list(self._remote.get(sid, {}))

    async def join_elsewhere(
        self,
        sid: str,
        connection_id: str,
        init_data: ConversationInitData,
        user_id: str | None,
        latest_event_id: int,
    ) -> AgentLoopInfo | None:
        self._init_data[sid] = (init_data, user_id)
        for _ in range(_ATTEMPTS):
            if self._runs_here(sid):
                return None
            owner = await self._claim(sid, user_id)
            if owner == self.node_id:
                return None
            try:
                return await self._join_remote(
                    owner, sid, connection_id, user_id, latest_event_id + 1
                )
            except NodeGoneError:
                continue  # died before it held the socket: claim again
        return None

    async def _join_remote(
        self, owner: str, sid: str, connection_id: str, user_id: str | None, start: int
    ) -> AgentLoopInfo:
        """Join a socket of this node to a loop running on ``owner``."""
        manager = self.manager
        await self._request(owner, {"op": "hold", "sid": sid, "conn": connection_id})
        try:
            await manager.sio.enter_room(connection_id, room_name(sid))
            manager.rooms.connections[connection_id] = sid
            self._joined_remote[connection_id] = owner
            last_id = await manager._replay(sid, connection_id, user_id, start)
        except BaseException:
            manager.rooms.connections.pop(connection_id, None)
            self._joined_remote.pop(connection_id, None)
            with contextlib.suppress(Exception):
                await self.bus.notify(owner, {"op": "forget", "sid": sid, "conn": connection_id})
            raise
        try:
            await self._request(
                owner, {"op": "release", "sid": sid, "conn": connection_id, "last_id": last_id}
            )
        except NodeGoneError:
            await self._take_over(sid, owner)  # sends the socket what came after ``last_id``
        session = manager.loops.session(sid)
        return manager._loop_info(session) if session is not None else await self._remote_info(sid)

    def replayed(self, connection_id: str, last_id: int) -> None:
        self._marks[connection_id] = max(self._marks.get(connection_id, -1), last_id)

    async def disconnected(self, connection_id: str, sid: str | None) -> None:
        self._marks.pop(connection_id, None)
        owner = self._joined_remote.pop(connection_id, None)
        if owner is not None and sid is not None:
            with contextlib.suppress(Exception):
                await self.bus.notify(owner, {"op": "forget", "sid": sid, "conn": connection_id})

    def _on_emit(self, room: str | None, event: str, data: object, skip: list[str]) -> None:
        """Note the highest event id each local socket was sent live."""
        if self._manager is None or event != OH_EVENT or room is None or not isinstance(data, dict):
            return
        event_id = data.get("id")
        if not isinstance(event_id, int):
            return
        rooms = self._manager.rooms
        if room.startswith("room:"):
            targets = [c for c in rooms.local_members(room) if c not in skip]
        else:
            targets = [room] if room in rooms.connections else []
        for connection_id in targets:
            if event_id > self._marks.get(connection_id, -1):
                self._marks[connection_id] = event_id

    # --- requests from other nodes -------------------------------------------------------

    async def _handle_request(self, message: Message) -> Message:
        manager = self.manager
        op, sid = message.get("op"), str(message.get("sid", ""))
        connection_id = str(message.get("conn", ""))
        if op == "hold":
            delivery = manager.rooms.delivery(sid)
            delivery.hold(connection_id)
            self._remote.setdefault(sid, {})[connection_id] = str(message.get("from", ""))
            await delivery.settle()  # the reply follows every emit that did not hold it
        elif op == "release":
            if manager.rooms.has_delivery(sid):
                last_id = message.get("last_id")
                mark = last_id if isinstance(last_id, int) else -1
                await manager.rooms.release(sid, connection_id, mark)
        elif op == "forget":
            if manager.rooms.has_delivery(sid):
                manager.rooms.abandon(sid, connection_id)
            self._remote.get(sid, {}).pop(connection_id, None)
        elif op == "dispatch":
            session = manager.loops.session(sid)
            if session is None:
                return {"ok": False, "error": "no_conversation"}
            data = message.get("data")
            try:
                if not isinstance(data, dict):
                    raise InvalidUserActionError("An action must be a JSON object")
                await session.dispatch(data)
            except InvalidUserActionError as error:
                return {"ok": False, "error": "invalid", "message": str(error)}
        elif op == "close":
            if self._runs_here(sid):
                await manager.close_session(sid)
        else:
            return {"ok": False, "error": "unknown", "message": f"unknown op {op}"}
        return {"ok": True}

    # --- takeover ------------------------------------------------------------------------

    async def _take_over(self, sid: str, dead: str) -> None:
        """Run ``sid`` here (unless another node got there first) after its owner died, and
        send this node's sockets of ``sid`` what they missed."""
        manager = self.manager
        lock = self._takeover_locks.setdefault(sid, asyncio.Lock())
        async with lock:
            if self._runs_here(sid):
                return
            # Whatever the dead node published has now been handled here (marks included).
            await self.bus.barrier()
            init_data, user_id = self._init_data.get(sid) or await self._load_init_data(sid)
            owner = await self._claim(sid, user_id)
            sockets = manager.rooms.sockets_of(sid)
            if owner == self.node_id:
                delivery = manager.rooms.delivery(sid)
                for connection_id in sockets:
                    delivery.hold(connection_id)
                    self._joined_remote.pop(connection_id, None)
                try:
                    await manager._start_here(sid, init_data, user_id)
                finally:
                    for connection_id in sockets:
                        start = self._marks.get(connection_id, -1) + 1
                        try:
                            last_id = await manager._replay(sid, connection_id, user_id, start)
                        except Exception:
                            delivery.forget(connection_id)
                            logger.exception("Catching up %s failed", connection_id)
                            continue
                        await delivery.release(connection_id, last_id)
                return
            for connection_id in sockets:  # another node took it: join its delivery
                start = self._marks.get(connection_id, -1) + 1
                with contextlib.suppress(NodeGoneError):
                    await self._join_remote(owner, sid, connection_id, user_id, start)

    # --- the tick: renew, release, watch -------------------------------------------------

    async def _tick_forever(self) -> None:
        while True:
            await asyncio.sleep(TICK_SECONDS)
            try:
                await self._tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("Cluster tick failed")

    async def _tick(self) -> None:
        manager = self.manager
        now = time.monotonic()
        states: dict[str, tuple[str, str | None]] = {}
        for sid, taken in list(self._owned.items()):
            session = manager.loops.session(sid)
            if session is not None:
                states[sid] = (session.status.value, session.runtime_status)
            elif now - taken > CLAIM_GRACE_SECONDS:
                await self._release(sid)
            else:
                states[sid] = (ConversationStatus.STARTING.value, None)
        for sid in await self.leases.renew(states):
            logger.warning("Node %s lost the lease of %s; closing its loop here", self.node_id, sid)
            self._owned.pop(sid, None)  # not ours: its close must not release it
            if self._runs_here(sid):
                await manager.close_session(sid)
        await self._forget_dead_sockets()
        await self._watch()

    async def _forget_dead_sockets(self) -> None:
        nodes = {node for members in self._remote.values() for node in members.values()}
        if not nodes:
            return
        alive = await self.bus.alive(nodes)
        rooms = self.manager.rooms
        for sid, members in self._remote.items():
            for connection_id, node in list(members.items()):
                if node not in alive:
                    del members[connection_id]
                    if rooms.has_delivery(sid):
                        rooms.abandon(sid, connection_id)

    async def _watch(self) -> None:
        """Take over the conversations this node's sockets watch whose owner died."""
        watched = {
            sid for sid in self.manager.rooms.connections.values() if not self._runs_here(sid)
        }
        watched -= set(self._takeovers)
        if not watched:
            return
        leases = await self.leases.read(watched)
        others = {sid: lease for sid, lease in leases.items() if lease.node != self.node_id}
        alive = await self.bus.alive({lease.node for lease in others.values()})
        for sid, lease in others.items():
            if lease.node not in alive:
                task = asyncio.create_task(self._take_over(sid, lease.node), name=f"takeover-{sid}")
                self._takeovers[sid] = task
                task.add_done_callback(functools.partial(self._takeover_done, sid))

    def _takeover_done(self, sid: str, task: asyncio.Task[None]) -> None:
        self._takeovers.pop(sid, None)
        if not task.cancelled() and task.exception() is not None:
            logger.error("Taking %s over failed: %r", sid, task.exception())


def _lease_info(lease: Lease) -> AgentLoopInfo:
    try:
        status = ConversationStatus(lease.status)
    except ValueError:
        status = ConversationStatus.STARTING
    return AgentLoopInfo(
        conversation_id=lease.sid,
        url=f"/api/conversations/{lease.sid}",
        session_api_key=None,
        status=status,
        runtime_status=lease.runtime_status,
    )
