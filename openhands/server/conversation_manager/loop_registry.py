"""The agent loops running in this process (one role of the manager).

Each running (or starting) conversation has one ``RunningLoop``. Taking a loop out of the
registry (``detach``) is synchronous and marks its sandbox as being torn down in the
process's ``Teardowns`` record until the sandbox is gone; a new start of the same
conversation waits for that (``wait_for_teardown``) instead of attaching to a sandbox that
is going away. The start lock covers deciding and registering only: no await of another
conversation's start or stop happens under it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from openhands.runtime.utils.teardowns import SANDBOX_TEARDOWNS, Teardowns
from openhands.server.session.metadata_updater import MetadataUpdater
from openhands.server.session.session import Session
from openhands.storage.conversation.conversation_store import ConversationStore

logger = logging.getLogger(__name__)

_OLDEST = datetime.min


def teardown_key(sid: str) -> str:
    return f"conversation:{sid}"


@dataclass(eq=False)
class RunningLoop:
    session: Session
    updater: MetadataUpdater | None = None
    start: asyncio.Task[None] | None = None

    @property
    def start_failed(self) -> bool:
        """A start that ended in failure: not a loop to reuse."""
        if self.start is not None and not self.start.done():
            return False
        # Only an explicit failure counts: an extension's agent session may not track it.
        return getattr(self.session.agent_session, "start_failed", False) is True


class LoopRegistry:
    def __init__(self, teardowns: Teardowns = SANDBOX_TEARDOWNS) -> None:
        self.teardowns = teardowns
        self.start_lock = asyncio.Lock()
        self._loops: dict[str, RunningLoop] = {}
        # Teardowns this registry began and that are not over (shutdown waits for them).
        self._tearing: Counter[str] = Counter()

    def get(self, sid: str) -> RunningLoop | None:
        return self._loops.get(sid)

    def session(self, sid: str) -> Session | None:
        loop = self._loops.get(sid)
        return loop.session if loop is not None else None

    def items(self) -> list[tuple[str, RunningLoop]]:
        return list(self._loops.items())

    def running(
        self, user_id: str | None = None, filter_to_sids: set[str] | None = None
    ) -> set[str]:
        return {
            sid
            for sid, loop in self._loops.items()
            if (filter_to_sids is None or sid in filter_to_sids)
            and (user_id is None or loop.session.user_id == user_id)
        }

    def add(self, sid: str, loop: RunningLoop) -> None:
        if sid in self._loops:
            raise ValueError(f"a loop of {sid} is registered already")
        self._loops[sid] = loop

    # --- stopping ------------------------------------------------------------------------

    def detach(self, sid: str) -> RunningLoop | None:
        """Take ``sid``'s loop out; from now until ``teardown_over`` its sandbox counts as
        being torn down."""
        loop = self._loops.pop(sid, None)
        if loop is not None:
            self.teardowns.begin(teardown_key(sid))
            self._tearing[sid] += 1
        return loop

    def teardown_over_when_done(self, sid: str, loop: RunningLoop) -> None:
        """Call after the loop's session closed: the teardown ends with its sandbox's."""
        pending = loop.session.agent_session.teardown
        if isinstance(pending, asyncio.Future) and not pending.done():
            pending.add_done_callback(lambda _: self._teardown_over(sid))
        else:
            self._teardown_over(sid)

    def _teardown_over(self, sid: str) -> None:
        self._tearing[sid] -= 1
        if self._tearing[sid] <= 0:
            del self._tearing[sid]
        self.teardowns.end(teardown_key(sid))

    async def wait_for_teardown(self, sid: str, timeout: float) -> None:
        """Wait until no teardown of ``sid``'s sandbox is in flight (other conversations'
        are not waited for)."""
        if not await self.teardowns.wait_async(teardown_key(sid), timeout):
            logger.warning("The sandbox teardown of %s is still running; starting anyway", sid)

    async def wait_for_all_teardowns(self, timeout: float) -> None:
        keys = [teardown_key(sid) for sid in self._tearing]
        await self.teardowns.wait_all_async(keys, timeout)


async def oldest_first(store: ConversationStore, sids: set[str]) -> list[str]:
    """``sids`` from the least recently updated on (unknown metadata first)."""

    async def updated(sid: str) -> datetime:
        try:
            metadata = await store.get_metadata(sid)
        except (FileNotFoundError, ValueError):
            return _OLDEST
        stamp = metadata.last_updated_at
        return stamp.replace(tzinfo=None) if stamp is not None else _OLDEST

    stamps = {sid: await updated(sid) for sid in sids}
    return sorted(sorted(stamps), key=lambda sid: stamps[sid])
