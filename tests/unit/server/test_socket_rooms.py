"""SocketRooms: which socket joined which conversation, and the hand-over from a join's
replay to live delivery."""

from __future__ import annotations

from typing import Any, cast

import socketio

from openhands.server.conversation_manager.socket_rooms import SocketRooms
from openhands.storage.memory import InMemoryFileStore


class FakeManager:
    def __init__(self) -> None:
        self.rooms: dict[str, set[str]] = {}

    def get_participants(self, namespace: str, room: str) -> list[tuple[str, str]]:
        return [(sid, f"eio-{sid}") for sid in sorted(self.rooms.get(room, set()))]


class FakeSio:
    """Rooms, emits and disconnects, recorded."""

    def __init__(self) -> None:
        self.manager = FakeManager()
        self.sent: list[tuple[str, Any]] = []  # (connection, payload)
        self.disconnected: list[str] = []

    async def enter_room(self, sid: str, room: str) -> None:
        self.manager.rooms.setdefault(room, set()).add(sid)

    async def disconnect(self, sid: str) -> None:
        self.disconnected.append(sid)
        for members in self.manager.rooms.values():
            members.discard(sid)

    async def emit(self, event: str, data: Any = None, to=None, room=None, skip_sid=None) -> None:
        targets = [to] if to else sorted(self.manager.rooms.get(room, set()) - set(skip_sid or []))
        self.sent.extend((target, data) for target in targets)


def make() -> tuple[SocketRooms, FakeSio]:
    sio = FakeSio()
    return SocketRooms(cast(socketio.AsyncServer, sio), InMemoryFileStore()), sio


async def test_a_held_socket_gets_what_came_during_its_replay_after_it() -> None:
    rooms, sio = make()
    await rooms.enter("c1", "s1")
    assert rooms.connections == {"s1": "c1"}
    await rooms.send("c1", {"id": 3})  # read by the replay too
    await rooms.send("c1", {"id": 5})  # after the replay's last id
    assert sio.sent == []  # held: buffered, not sent
    await rooms.release("c1", "s1", last_id=3)
    await rooms.send("c1", {"id": 6})
    assert sio.sent == [("s1", {"id": 5}), ("s1", {"id": 6})]


async def test_leave_and_disconnect_all_forget_only_that_conversation() -> None:
    rooms, sio = make()
    for connection_id, sid in [("s1", "c1"), ("s2", "c1"), ("s3", "c2")]:
        await rooms.enter(sid, connection_id)
        await rooms.release(sid, connection_id, last_id=-1)
    assert rooms.leave("s2") == "c1"
    assert rooms.leave("unknown") is None
    await rooms.disconnect_all("c1")
    assert sio.disconnected == ["s1"]
    assert rooms.connections == {"s3": "c2"}
    assert rooms.sockets_of("c2") == ["s3"]


async def test_unused_deliveries_are_dropped_unless_kept() -> None:
    rooms, _ = make()
    rooms.delivery("idle")
    rooms.delivery("kept")
    await rooms.enter("joined", "s1")
    rooms.drop_unused(keep=lambda sid: sid == "kept")
    assert not rooms.has_delivery("idle")
    assert rooms.has_delivery("kept") and rooms.has_delivery("joined")


async def test_room_members_include_the_policy_s_sockets_elsewhere() -> None:
    rooms, _ = make()
    await rooms.enter("c1", "local")
    assert rooms.members("room:c1") == ["local"]
    rooms.extra_members = lambda sid: ["remote"] if sid == "c1" else []
    assert rooms.members("room:c1") == ["local", "remote"]
    assert rooms.local_members("room:c1") == ["local"]
