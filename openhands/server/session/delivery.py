"""Room delivery for one conversation, with a seam-free hand-over from replay to live.

The reference replays stored events to a new socket and only then joins it to the room, so
events added in between reach the socket neither way. Here a joining socket is *held*
while it is in the room: live payloads skip it and are buffered for it instead. When the
replay (which read up to event id ``last_id``) is done, :meth:`release` sends the buffered
payloads newer than ``last_id`` and turns the socket live. Live payloads with an id at or
below the socket's watermark are never sent to it, so nothing is duplicated either.

Everything here runs on the server's event loop; the only awaits are the emits, and the
buffer/hold bookkeeping never spans one, so no payload can fall between two states.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterable
from typing import Protocol

import socketio

from openhands.server.models.socket import Payload


class Emitter(Protocol):
    async def emit(
        self,
        event: str,
        data: object = None,
        to: str | None = None,
        room: str | None = None,
        skip_sid: list[str] | None = None,
    ) -> None: ...


OH_EVENT = "oh_event"
_YIELD_EVERY = 50
_STREAM_BATCH = 25  # payloads handed from the reading thread to the loop at a time


def room_name(conversation_id: str) -> str:
    return f"room:{conversation_id}"


async def send_to_connection(
    sio: socketio.AsyncServer, connection_id: str, payloads: Iterable[Payload]
) -> None:
    """Send `oh_event` payloads to one socket, in order: the replay's bulk path.

    ``AsyncServer.emit`` creates and awaits one task per recipient on every call, which
    costs far more than the send itself when a replay emits thousands of events. These
    are the same EVENT packets ``emit`` builds, queued straight on the Engine.IO socket
    (which sends them in queue order), with no task and no wait per payload.
    """
    eio_sid = sio.manager.eio_sid_from_sid(connection_id, "/")
    if eio_sid is None:
        return  # the socket is already gone
    for count, payload in enumerate(payloads, 1):
        # binary=False: payloads are JSON objects (events as serialized for the wire), never
        # bytes; without it the packet walks every payload looking for binary parts, which
        # was half the cost of sending a replay.
        packet = sio.packet_class(
            socketio.packet.EVENT, namespace="/", data=[OH_EVENT, payload], binary=False
        )
        encoded = packet.encode()
        for part in encoded if isinstance(encoded, list) else [encoded]:
            await sio.eio.send(eio_sid, part)
        if count % _YIELD_EVERY == 0:
            # Let the socket's writer start on what is queued while we encode the rest.
            await asyncio.sleep(0)


async def stream_to_connection(
    sio: socketio.AsyncServer,
    connection_id: str,
    produce: Callable[[], Iterable[Payload]],
) -> None:
    """Send the payloads of ``produce()`` to one socket as they are read, in order.

    ``produce`` iterates in a worker thread (it reads files); the loop sends what it has
    been handed while the thread reads on, so the first event leaves after one read, not
    after the whole range. The first payload is handed over alone, the rest in batches.
    If sending fails (or the caller is cancelled) the thread stops at its next payload.
    Exceptions raised by ``produce`` are raised here, after what was read before them."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[list[Payload] | BaseException | None] = asyncio.Queue()
    stop = threading.Event()

    def hand_over(item: list[Payload] | BaseException | None) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the loop is closed: nobody is waiting any more
            stop.set()

    def read() -> None:
        batch: list[Payload] = []
        size = 1
        try:
            for payload in produce():
                if stop.is_set():
                    return
                batch.append(payload)
                if len(batch) >= size:
                    hand_over(batch)
                    batch, size = [], _STREAM_BATCH
                    # Let the loop's thread take the GIL and send what it was handed
                    # (it would otherwise wait for this thread's switch interval).
                    time.sleep(0)
            if batch:
                hand_over(batch)
            hand_over(None)
        except BaseException as error:  # handed to the loop, raised there
            hand_over(error)

    reader = loop.run_in_executor(None, read)
    try:
        while True:
            item = await queue.get()
            if item is None:
                break
            if isinstance(item, BaseException):
                raise item
            await send_to_connection(sio, connection_id, item)
    finally:
        stop.set()
    await reader


class RoomDelivery:
    def __init__(
        self,
        sio: Emitter,
        conversation_id: str,
        members: Callable[[str], Iterable[str]] | None = None,
    ) -> None:
        self.sio = sio
        self._members = members
        self.room = room_name(conversation_id)
        self._held: dict[str, list[Payload]] = {}
        self._watermarks: dict[str, int] = {}
        # Held by each room emit from choosing its recipients until the emit returns; see
        # ``settle`` (the clustered manager's hold of a socket on another node).
        self._emitting = asyncio.Lock()

    def hold(self, connection_id: str) -> None:
        """Start buffering live payloads for ``connection_id`` (call before it joins the room)."""
        self._held[connection_id] = []

    async def release(self, connection_id: str, last_id: int) -> None:
        """Send what was buffered after event ``last_id``, then deliver live from now on."""
        buffer = self._held.get(connection_id)
        while buffer:
            payload = buffer.pop(0)
            if _is_new(payload, last_id):
                await self.sio.emit(OH_EVENT, payload, to=connection_id)
        self._held.pop(connection_id, None)
        self._watermarks[connection_id] = last_id

    def forget(self, connection_id: str) -> None:
        self._held.pop(connection_id, None)
        self._watermarks.pop(connection_id, None)

    async def settle(self) -> None:
        """Wait for the room emits that chose their recipients before now. After ``hold`` it
        means: every payload not buffered for the held socket has been emitted (with a
        Redis manager: published), so a reply sent after this follows all of them."""
        async with self._emitting:
            pass

    async def send(self, payload: Payload) -> None:
        """Emit one payload to the room, respecting held sockets and watermarks."""
        async with self._emitting:
            await self._send(payload)

    async def _send(self, payload: Payload) -> None:
        skip: list[str] = []
        for connection_id, buffer in self._held.items():
            buffer.append(payload)
            skip.append(connection_id)
        event_id = payload.get("id")
        if isinstance(event_id, int):
            for connection_id, mark in list(self._watermarks.items()):
                if event_id <= mark:
                    skip.append(connection_id)
                else:
                    # Payloads arrive in id order: this socket is past its replay for good.
                    del self._watermarks[connection_id]
        await self.sio.emit(OH_EVENT, payload, room=self.room, skip_sid=skip or None)

    def has_members(self) -> bool:
        """Whether any socket is in the room (unknown counts as yes)."""
        if self._members is None:
            return True
        return any(True for _ in self._members(self.room))

    @property
    def idle(self) -> bool:
        return not self._held and not self._watermarks


def _is_new(payload: Payload, last_id: int) -> bool:
    event_id = payload.get("id")
    return not isinstance(event_id, int) or event_id > last_id
