"""ServerConversation: a per-request handle onto a conversation's event stream and sandbox.

Constructed as in 0.59: ``ServerConversation(sid, file_store, config, user_id,
event_stream=None, runtime=None)``. Without a runtime it creates one in attach-to-existing
mode and owns it (``connect`` connects it, ``disconnect`` closes it and the stream); with a
runtime (a running loop's) it only borrows it. ``borrowed=True`` (ours) borrows a running
loop's parts as they are, even before its runtime exists (``runtime`` is then None and the
routes that need one answer 404).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from openhands.events.event_store import EventStore
from openhands.events.stream import EventStream

if TYPE_CHECKING:
    from openhands.core.config import OpenHandsConfig
    from openhands.runtime.base import Runtime
    from openhands.security.analyzer import SecurityAnalyzer
    from openhands.storage.files import FileStore

logger = logging.getLogger(__name__)


class ServerConversation:
    def __init__(
        self,
        sid: str,
        file_store: FileStore,
        config: OpenHandsConfig,
        user_id: str | None,
        event_stream: EventStore | None = None,
        runtime: Runtime | None = None,
        *,
        security_analyzer: SecurityAnalyzer | None = None,
        borrowed: bool = False,
    ) -> None:
        self.sid = sid
        self.file_store = file_store
        self.config = config
        self.user_id = user_id
        self.event_stream: EventStore = (
            event_stream if event_stream is not None else EventStream(sid, file_store, user_id)
        )
        # True: the runtime was made here, for REST calls (no agent loop); it is ours to close.
        self.owns_runtime = runtime is None and not borrowed
        self.runtime: Runtime | None = self._attached_runtime() if self.owns_runtime else runtime
        self._security_analyzer = security_analyzer

    def _attached_runtime(self) -> Runtime:
        from openhands.llm.llm_registry import LLMRegistry
        from openhands.runtime import get_runtime_cls

        if not isinstance(self.event_stream, EventStream):
            raise TypeError("An attached runtime needs a live EventStream, not a read-only store")
        runtime_cls = get_runtime_cls(self.config.runtime)
        return runtime_cls(
            config=self.config,
            event_stream=self.event_stream,
            llm_registry=LLMRegistry(self.config),
            sid=self.sid,
            attach_to_existing=True,
            headless_mode=False,
            user_id=self.user_id,
        )

    @property
    def security_analyzer(self) -> SecurityAnalyzer | None:
        """The running loop's analyzer (None without a loop or without an analyzer)."""
        return self._security_analyzer

    async def connect(self) -> None:
        """Connect a runtime this handle owns; a running loop's runtime is already connected."""
        if self.owns_runtime and self.runtime is not None:
            await self.runtime.connect()

    async def disconnect(self) -> None:
        """Close what this handle owns (the attached runtime and its stream); a borrowed
        loop's stream and runtime are left alone."""
        if not self.owns_runtime:
            return
        close_stream = getattr(self.event_stream, "close", None)
        if close_stream is not None:
            close_stream()
        if self.runtime is None:
            return
        try:
            await asyncio.to_thread(self.runtime.close)
        except Exception:
            logger.exception("Closing the attached runtime of %s failed", self.sid)
