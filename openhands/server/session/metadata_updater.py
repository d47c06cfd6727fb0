"""Keeps ``metadata.json`` in step with a running conversation's events (server-api §8.7)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import re
from collections.abc import Callable
from datetime import UTC, datetime

from openhands.events.action import MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import CmdOutputObservation
from openhands.server.session.title import make_title
from openhands.storage.conversation.conversation_store import ConversationStore
from openhands.storage.data_models.conversation_metadata import default_title
from openhands.storage.data_models.settings import Settings

logger = logging.getLogger(__name__)

_BRANCH_COMMAND = re.compile(r"git\s+(checkout|switch|merge|rebase|reset|branch)\b")
_UPDATE_TIMEOUT_SECONDS = 120.0


class MetadataUpdater:
    """Subscribed to the stream; each event's update runs on the server loop, in order."""

    def __init__(
        self,
        sid: str,
        store: ConversationStore,
        loop: asyncio.AbstractEventLoop,
        settings: Settings | None,
        on_title: Callable[[str], None],
        branch_of: Callable[[], str | None] | None = None,
        lock: asyncio.Lock | None = None,
    ) -> None:
        self.sid = sid
        self.store = store
        self.loop = loop
        self.settings = settings
        self.on_title = on_title
        self.branch_of = branch_of
        self._lock = lock or asyncio.Lock()
        self._closed = False

    async def close(self) -> None:
        """Wait for an update in flight; later events change nothing (e.g. after a delete)."""
        async with self._lock:
            self._closed = True

    def on_event(self, event: Event) -> None:
        """Stream callback (worker thread): hand the update to the server loop and wait."""
        future = asyncio.run_coroutine_threadsafe(self.update(event), self.loop)
        try:
            future.result(timeout=_UPDATE_TIMEOUT_SECONDS)
        except concurrent.futures.CancelledError:
            pass  # the server is shutting down
        except Exception:
            logger.exception("Metadata update of %s failed", self.sid)

    async def update(self, event: Event) -> None:
        if self._closed:
            return
        # The slow parts (an LLM call, a command in the sandbox) run without the lock.
        title = await self._maybe_title(event)
        branch = None
        if self.branch_of is not None and _changes_branch(event):
            branch = await asyncio.to_thread(self.branch_of)
        async with self._lock:
            if self._closed:
                return
            try:
                metadata = await self.store.get_metadata(self.sid)
            except FileNotFoundError:
                return
            changes: dict[str, object] = {"last_updated_at": datetime.now(UTC)}
            metrics = event.llm_metrics
            if metrics is not None:
                usage = metrics.accumulated_token_usage
                changes["accumulated_cost"] = metrics.accumulated_cost
                changes["prompt_tokens"] = usage.prompt_tokens
                changes["completion_tokens"] = usage.completion_tokens
                changes["total_tokens"] = usage.prompt_tokens + usage.completion_tokens
            if branch and branch != metadata.selected_branch:
                changes["selected_branch"] = branch
            if title and self._has_default_title(metadata.title):
                changes["title"] = title
            else:
                title = None
            await self.store.save_metadata(metadata.model_copy(update=changes))
        if title:
            self.on_title(title)

    def _has_default_title(self, title: str | None) -> bool:
        return title in (None, "", default_title(self.sid))

    async def _maybe_title(self, event: Event) -> str | None:
        text = _first_message_text(event)
        if not text:
            return None
        try:
            metadata = await self.store.get_metadata(self.sid)
        except FileNotFoundError:
            return None
        if not self._has_default_title(metadata.title):
            return None
        return await asyncio.to_thread(make_title, text, self.settings)


def _first_message_text(event: Event) -> str | None:
    if isinstance(event, MessageAction) and event.source == EventSource.USER:
        return event.content.strip() or None
    return None


def _changes_branch(event: Event) -> bool:
    return (
        isinstance(event, CmdOutputObservation)
        and event.exit_code == 0
        and bool(_BRANCH_COMMAND.search(event.command))
    )
