"""A python-socketio client that records every `oh_event` (test helper)."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlencode

import socketio


class Recorder:
    def __init__(self) -> None:
        self.client = socketio.AsyncClient(reconnection=False)
        self.events: list[dict[str, Any]] = []
        self.connect_errors: list[Any] = []
        self.disconnected = asyncio.Event()
        self.client.on("oh_event", self._on_event)
        self.client.on("connect_error", self._on_connect_error)
        self.client.on("disconnect", self._on_disconnect)

    async def _on_event(self, data: dict[str, Any]) -> None:
        self.events.append(data)

    async def _on_connect_error(self, data: Any) -> None:
        self.connect_errors.append(data)

    async def _on_disconnect(self, *args: Any) -> None:
        self.disconnected.set()

    async def connect(self, base_url: str, **query: Any) -> None:
        url = f"{base_url}?{urlencode(query)}" if query else base_url
        await self.client.connect(url, transports=["websocket"], wait_timeout=20)

    async def refused(self, base_url: str, **query: Any) -> Any:
        """Connect expecting a refusal; returns the CONNECT_ERROR payload."""
        try:
            await self.connect(base_url, **query)
        except socketio.exceptions.ConnectionError:
            pass
        else:
            raise AssertionError("the connection was accepted")
        for _ in range(100):
            if self.connect_errors:
                return self.connect_errors[0]
            await asyncio.sleep(0.02)
        raise AssertionError("no connect_error payload arrived")

    async def emit(self, event: str, data: Any) -> None:
        await self.client.emit(event, data)

    async def wait_for(self, predicate: Any, timeout: float = 20.0) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for event in self.events:
                if predicate(event):
                    return event
            if loop.time() > deadline:
                raise AssertionError(f"no matching oh_event; got {self.events}")
            await asyncio.sleep(0.02)

    def ids(self) -> list[int]:
        return [e["id"] for e in self.events if isinstance(e.get("id"), int)]

    async def close(self) -> None:
        if self.client.connected:
            await self.client.disconnect()
