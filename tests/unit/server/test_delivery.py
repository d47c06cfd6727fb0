"""RoomDelivery: the replay → live hand-over, without a network."""

from __future__ import annotations

from typing import Any

from openhands.server.session.delivery import RoomDelivery


class FakeSio:
    """Records emits; the room holds ``members``."""

    def __init__(self, members: list[str]) -> None:
        self.members = members
        self.received: dict[str, list[Any]] = {member: [] for member in members}

    async def emit(self, event: str, data: Any = None, to=None, room=None, skip_sid=None) -> None:
        targets = [to] if to else [m for m in self.members if m not in (skip_sid or [])]
        for target in targets:
            self.received[target].append(data)


async def test_held_socket_gets_buffered_events_after_its_replay() -> None:
    sio = FakeSio(["old", "new"])
    delivery = RoomDelivery(sio, "c1")
    delivery.hold("new")
    await delivery.send({"id": 5})  # replayed too: must not be sent twice
    await delivery.send({"id": 6})  # newer than the replay: must arrive
    await delivery.send({"status_update": True})  # no id: always delivered
    await delivery.release("new", last_id=5)
    await delivery.send({"id": 7})
    assert sio.received["old"] == [{"id": 5}, {"id": 6}, {"status_update": True}, {"id": 7}]
    assert sio.received["new"] == [{"id": 6}, {"status_update": True}, {"id": 7}]


async def test_watermark_skips_late_live_copies_of_replayed_events() -> None:
    sio = FakeSio(["new"])
    delivery = RoomDelivery(sio, "c1")
    delivery.hold("new")
    await delivery.release("new", last_id=9)
    await delivery.send({"id": 8})  # in flight during the replay, which already sent it
    await delivery.send({"id": 10})
    await delivery.send({"id": 11})
    assert sio.received["new"] == [{"id": 10}, {"id": 11}]
    assert delivery.idle
