"""The sockets of this node and the room each one joined (one role of the manager).

A socket (connection id) joins one conversation's room. Each conversation with sockets
(or a loop) has one ``RoomDelivery``: the loop's session sends through it, and a joining
socket is held in it while its replay runs, so nothing falls between replay and live.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable

import socketio

from openhands.events.event_store import EventStore
from openhands.server.models.socket import Payload
from openhands.server.session.delivery import RoomDelivery, room_name, stream_to_connection
from openhands.server.session.event_rules import iter_replay_payloads
from openhands.storage.files import FileStore

# conversation id → connection ids outside this process that are in its room.
ExtraMembers = Callable[[str], Iterable[str]]


class SocketRooms:
    def __init__(self, sio: socketio.AsyncServer, file_store: FileStore) -> None:
        self.sio = sio
        self.file_store = file_store
        # Socket (connection id) → the conversation it joined.
        self.connections: dict[str, str] = {}
        self._deliveries: dict[str, RoomDelivery] = {}
        # Set by an ownership policy whose rooms span several nodes.
        self.extra_members: ExtraMembers | None = None

    # --- deliveries ----------------------------------------------------------------------

    def delivery(self, sid: str) -> RoomDelivery:
        """The kept room delivery of ``sid`` (made on first use)."""
        delivery = self._deliveries.get(sid)
        if delivery is None:
            delivery = self._deliveries[sid] = RoomDelivery(self.sio, sid, self.members)
        return delivery

    def peek(self, sid: str) -> RoomDelivery:
        """The kept delivery, or one that is not kept when there is none (then no socket is
        held or joined, so it sends like a kept one)."""
        return self._deliveries.get(sid) or RoomDelivery(self.sio, sid, self.members)

    def has_delivery(self, sid: str) -> bool:
        return sid in self._deliveries

    def members(self, room: str) -> list[str]:
        local = [sid for sid, _ in self.sio.manager.get_participants("/", room)]
        if self.extra_members is None:
            return local
        return [*local, *self.extra_members(room.removeprefix("room:"))]

    def local_members(self, room: str) -> list[str]:
        return [sid for sid, _ in self.sio.manager.get_participants("/", room)]

    async def send(self, sid: str, payload: Payload) -> None:
        await self.peek(sid).send(payload)

    # --- joining and leaving -------------------------------------------------------------

    async def enter(self, sid: str, connection_id: str) -> None:
        """Put the socket in the room, held: live payloads are buffered for it until
        ``release``. Undone if it fails."""
        delivery = self.delivery(sid)
        delivery.hold(connection_id)
        try:
            await self.sio.enter_room(connection_id, room_name(sid))
        except BaseException:
            delivery.forget(connection_id)
            raise
        self.connections[connection_id] = sid

    def abandon(self, sid: str, connection_id: str) -> None:
        """A join that failed after ``enter``: the socket is not delivered to."""
        self.delivery(sid).forget(connection_id)

    async def release(self, sid: str, connection_id: str, last_id: int) -> None:
        await self.delivery(sid).release(connection_id, last_id)

    def leave(self, connection_id: str) -> str | None:
        """The socket went away; returns the conversation it had joined."""
        sid = self.connections.pop(connection_id, None)
        if sid is not None and (delivery := self._deliveries.get(sid)) is not None:
            delivery.forget(connection_id)
        return sid

    def sockets_of(self, sid: str) -> list[str]:
        return [
            connection_id for connection_id, joined in self.connections.items() if joined == sid
        ]

    async def disconnect_all(self, sid: str) -> None:
        """Drop and disconnect every socket of this node in ``sid``'s room."""
        for connection_id in self.sockets_of(sid):
            self.leave(connection_id)
            with contextlib.suppress(Exception):
                await self.sio.disconnect(connection_id)

    def drop_unused(self, keep: Callable[[str], bool]) -> None:
        """Forget the deliveries nobody uses: no socket, nothing held, not kept by ``keep``."""
        joined = set(self.connections.values())
        for sid, delivery in list(self._deliveries.items()):
            if sid not in joined and delivery.idle and not keep(sid):
                del self._deliveries[sid]

    # --- replay --------------------------------------------------------------------------

    async def replay(self, sid: str, connection_id: str, user_id: str | None, start: int) -> int:
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
