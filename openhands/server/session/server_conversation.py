"""ServerConversation: a per-request handle onto a conversation's event stream and sandbox."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from openhands.events.event_store import EventStore

logger = logging.getLogger(__name__)


@dataclass
class ServerConversation:
    """``owns_runtime`` is True for a runtime attached only for REST calls (no agent loop).
    ``security_analyzer`` is the running loop's analyzer (None without a loop or analyzer)."""

    sid: str
    event_stream: EventStore
    runtime: Any
    user_id: str | None = None
    owns_runtime: bool = False
    security_analyzer: Any = None

    async def connect(self) -> None:
        """Connect a runtime this handle owns (one attached for REST calls); a running
        loop's runtime is already connected."""
        if self.owns_runtime and self.runtime is not None:
            await self.runtime.connect()

    async def disconnect(self) -> None:
        if not self.owns_runtime:
            return
        close_stream = getattr(self.event_stream, "close", None)
        if close_stream is not None:
            close_stream()
        if self.runtime is not None:
            try:
                await asyncio.to_thread(self.runtime.close)
            except Exception:
                logger.exception("Closing the attached runtime of %s failed", self.sid)
