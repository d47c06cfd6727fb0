"""Socket.IO's Redis client manager, as the server's nodes share it (env ``REDIS_HOST``).

``RedisSocketManager`` is python-socketio's ``AsyncRedisManager`` (every emit reaches the
sockets of every node) with three additions:

- the address comes from ``REDIS_HOST`` (``host``, ``host:port`` or a ``redis://`` URL)
  and the password from ``REDIS_PASSWORD``, passed to the client as an option so that it
  is never part of a URL that a log line or an error message could show;
- more channels can be subscribed on the same Redis connection (``add_channel``). Redis
  delivers one connection's messages in the order it published them, so a message on such
  a channel is handled after every Socket.IO emit published before it: the clustered
  conversation manager relies on that for its replay/live hand-over;
- observers see every emit this node hands to its own sockets (``observe_emits``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import socketio

if TYPE_CHECKING:
    from redis.asyncio import Redis

logger = logging.getLogger(__name__)

ChannelHandler = Callable[[bytes], Awaitable[None]]
# (room or connection id, event name, data, connection ids skipped)
EmitObserver = Callable[[str | None, str, object, list[str]], None]
_MAX_RETRY_SECONDS = 30.0


def redis_url(host: str) -> str:
    """``REDIS_HOST`` as a URL without credentials."""
    return host if "://" in host else f"redis://{host}"


class RedisSocketManager(socketio.AsyncRedisManager):  # type: ignore[misc]
    def __init__(self, host: str, password: str | None = None, channel: str = "socketio") -> None:
        options = {"password": password} if password else {}
        super().__init__(redis_url(host), channel=channel, redis_options=options)
        self._channels: dict[bytes, ChannelHandler] = {}
        self._observers: list[EmitObserver] = []
        self.subscribed = asyncio.Event()

    def command_client(self) -> Redis:
        """A new client for commands, with the same address and password."""
        from redis.asyncio import Redis

        return Redis.from_url(self.redis_url, **self.redis_options)

    # --- extra channels and observers ----------------------------------------------------

    async def add_channel(self, name: str, handler: ChannelHandler) -> None:
        """Deliver the messages of channel ``name`` to ``handler``, in order with emits."""
        self._channels[name.encode()] = handler
        if self.subscribed.is_set() and self.pubsub is not None:
            await self.pubsub.subscribe(name)

    def observe_emits(self, observer: EmitObserver) -> None:
        self._observers.append(observer)

    def start_listening(self) -> None:
        """Subscribe now rather than at the first socket connection (python-socketio's
        default): a node that has no socket yet still receives its channels."""
        if not self.server.manager_initialized:
            self.server.manager_initialized = True
            self.initialize()

    # --- python-socketio hooks -----------------------------------------------------------

    async def _handle_emit(self, message: dict[str, Any]) -> None:
        await super()._handle_emit(message)
        data = message.get("data")
        payload = data[0] if isinstance(data, list) and len(data) == 1 else data
        skip = message.get("skip_sid") or []
        for observer in self._observers:
            try:
                observer(message.get("room"), str(message.get("event")), payload, list(skip))
            except Exception:
                logger.exception("An emit observer failed")

    async def _redis_listen_with_retries(self) -> AsyncIterator[dict[str, Any]]:
        delay = 1.0
        while True:
            try:
                self._redis_connect()
                await self.pubsub.subscribe(self.channel, *(c.decode() for c in self._channels))
                self.subscribed.set()
                delay = 1.0
                async for message in self.pubsub.listen():
                    yield message
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self.subscribed.clear()
                # The error's type and text only: they never carry the password.
                logger.error("Redis subscription lost (%r); retrying in %.0fs", error, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, _MAX_RETRY_SECONDS)

    async def _listen(self) -> AsyncIterator[bytes | str]:
        own = self.channel.encode()
        async for message in self._redis_listen_with_retries():
            if message.get("type") != "message":
                continue
            channel, data = message.get("channel"), message.get("data")
            if channel == own:
                if isinstance(data, bytes | str):
                    yield data
                continue
            handler = self._channels.get(channel) if isinstance(channel, bytes) else None
            if handler is None or not isinstance(data, bytes):
                continue
            try:
                await handler(data)
            except Exception:
                logger.exception("Handling a message of %s failed", channel)
