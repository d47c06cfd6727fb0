"""Node-to-node messages of the clustered conversation manager, over Redis pub/sub.

Each node is a random id with a channel of its own, subscribed on the Socket.IO manager's
Redis connection (``RedisSocketManager.add_channel``), so on every node the node messages
and the Socket.IO emits arrive as one ordered stream. A node is alive while something is
subscribed to its channel (``PUBSUB NUMSUB``): a killed node's connection closes at once.

- ``request(node, message)`` publishes a request and waits for the reply; a PUBLISH that
  reaches nobody, or a node found dead while waiting, is ``NodeGoneError``.
- ``barrier()`` returns once this node has handled everything published before the call
  (it sends itself a message down the same stream).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from openhands.server.redis_socket_manager import RedisSocketManager

logger = logging.getLogger(__name__)

Message = dict[str, Any]
RequestHandler = Callable[[Message], Awaitable[Message]]
CHANNEL_PREFIX = "openhands:node:"
_ALIVE_CHECK_SECONDS = 2.0


class NodeGoneError(Exception):
    """The node a request was meant for is not subscribed any more (it died or stopped)."""

    def __init__(self, node: str) -> None:
        super().__init__(f"node {node} is gone")
        self.node = node


def node_channel(node: str) -> str:
    return f"{CHANNEL_PREFIX}{node}"


class ClusterBus:
    def __init__(self, sockets: RedisSocketManager) -> None:
        self.sockets = sockets
        # The Socket.IO manager's host id names this node: its emits carry it.
        self.node_id: str = sockets.host_id
        self._redis: Redis | None = None
        self._handler: RequestHandler | None = None
        self._pending: dict[str, asyncio.Future[Message]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def redis(self) -> Redis:
        if self._redis is None:
            raise RuntimeError("the cluster bus is not started")
        return self._redis

    async def start(self, handler: RequestHandler, timeout: float = 30.0) -> None:
        """Subscribe this node's channel and wait until Redis counts the subscription."""
        self._handler = handler
        self._redis = self.sockets.command_client()
        await self.sockets.add_channel(node_channel(self.node_id), self._on_message)
        self.sockets.start_listening()
        deadline = time.monotonic() + timeout
        while not await self.alive({self.node_id}):
            if time.monotonic() > deadline:
                raise RuntimeError("could not subscribe this node's Redis channel")
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for future in self._pending.values():
            future.cancel()
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None

    # --- liveness ------------------------------------------------------------------------

    async def alive(self, nodes: Iterable[str]) -> set[str]:
        wanted = sorted(set(nodes))
        if not wanted:
            return set()
        counts = await self.redis.pubsub_numsub(*(node_channel(n) for n in wanted))
        return {node for node, (_, count) in zip(wanted, counts, strict=True) if int(count) > 0}

    # --- sending -------------------------------------------------------------------------

    async def notify(self, node: str, message: Message) -> bool:
        """Publish without waiting for a reply; False when nobody received it."""
        receivers = await self.redis.publish(node_channel(node), json.dumps(message))
        return int(receivers) > 0

    async def request(self, node: str, message: Message, timeout: float = 60.0) -> Message:
        """Send ``message`` to ``node`` and return its reply."""
        request_id = uuid.uuid4().hex
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            envelope = {**message, "request": request_id, "from": self.node_id}
            if not await self.notify(node, envelope):
                raise NodeGoneError(node)
            deadline = time.monotonic() + timeout
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"no reply from node {node} to {message.get('op')}")
                done, _ = await asyncio.wait({future}, timeout=min(remaining, 2.0))
                if done:
                    return future.result()
                if not await self.alive({node}):
                    raise NodeGoneError(node)
        finally:
            self._pending.pop(request_id, None)

    async def barrier(self, timeout: float = 30.0) -> None:
        await self.request(self.node_id, {"op": "barrier"}, timeout)

    # --- receiving -----------------------------------------------------------------------

    async def _on_message(self, data: bytes) -> None:
        """Runs in the Socket.IO manager's listener: quick work only."""
        try:
            message = json.loads(data)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        reply_to = message.get("reply")
        if isinstance(reply_to, str):
            future = self._pending.get(reply_to)
            if future is not None and not future.done():
                future.set_result(message)
            return
        if message.get("op") == "barrier":
            await self._reply(message, {"ok": True})
            return
        # Other requests may wait (a close waits for the agent): handled beside the stream.
        task = asyncio.create_task(self._handle(message), name=f"cluster-{message.get('op')}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(self, message: Message) -> None:
        assert self._handler is not None
        try:
            reply = await self._handler(message)
        except Exception as error:
            logger.exception("Cluster request %s failed", message.get("op"))
            reply = {"ok": False, "error": "failed", "message": str(error)}
        await self._reply(message, reply)

    async def _reply(self, request: Message, reply: Message) -> None:
        sender, request_id = request.get("from"), request.get("request")
        if isinstance(sender, str) and isinstance(request_id, str):
            await self.notify(sender, {**reply, "reply": request_id})
