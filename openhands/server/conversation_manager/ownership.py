"""Which node runs a conversation: the swappable policy of the conversation manager.

The manager asks its policy at each point where another node may be involved: before a
start or a join, for loops running elsewhere, before borrowing a sandbox, and when an
action, a stop or a socket concerns a conversation without a loop here. ``LocalOwnership``
(one server process) answers "here, always"; the Redis lease policy of several nodes is
``cluster_ownership.LeaseOwnership``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from openhands.server.conversation_manager.conversation_manager import (
    AgentLoopInfo,
    NoConversationError,
)
from openhands.server.session.conversation_init_data import ConversationInitData

if TYPE_CHECKING:
    from openhands.server.conversation_manager.standalone_conversation_manager import (
        StandaloneConversationManager,
    )


class OwnershipPolicy:
    """Every conversation runs in this process (the base: each hook's local answer)."""

    async def open(self, manager: StandaloneConversationManager) -> None:
        """The manager starts (before its cleanup task)."""

    async def quiesce(self) -> None:
        """The manager stops: end background work before its loops are closed."""

    async def close(self) -> None:
        """The manager's loops are closed: let go of what the policy holds."""

    # --- starting and joining ------------------------------------------------------------

    async def claim(
        self, sid: str, init_data: ConversationInitData, user_id: str | None
    ) -> AgentLoopInfo | None:
        """Before a start: None to run the loop here, else the loop running elsewhere."""
        return None

    async def claimed(self, sid: str, user_id: str | None) -> None:
        """A loop of ``sid`` runs (or starts) here now."""

    async def join_elsewhere(
        self,
        sid: str,
        connection_id: str,
        init_data: ConversationInitData,
        user_id: str | None,
        latest_event_id: int,
    ) -> AgentLoopInfo | None:
        """Join the socket to a loop on another node; None to join (and start) here."""
        return None

    # --- loops elsewhere -----------------------------------------------------------------

    async def remote_loops(
        self, user_id: str | None, filter_to_sids: set[str] | None
    ) -> list[AgentLoopInfo]:
        return []

    async def runs_elsewhere(self, sid: str) -> bool:
        """Whether another node runs ``sid`` (its sandbox is then not borrowed here)."""
        return False

    async def dispatch_elsewhere(self, sid: str, data: dict[str, Any]) -> None:
        """An action for ``sid``, which has no loop here."""
        raise NoConversationError(sid)

    async def close_elsewhere(self, sid: str) -> None:
        """A stop of ``sid``, which has no loop here."""

    async def owner_url(self, sid: str) -> str | None:
        return None

    # --- local loops and sockets ---------------------------------------------------------

    async def before_close(self, sid: str) -> None:
        """The local loop of ``sid`` is about to close."""

    async def released(self, sid: str) -> None:
        """The local loop of ``sid`` was closed."""

    def extra_members(self, sid: str) -> Iterable[str]:
        """Sockets of other nodes in ``sid``'s room."""
        return ()

    def replayed(self, connection_id: str, last_id: int) -> None:
        """A local socket was sent stored events up to ``last_id``."""

    async def disconnected(self, connection_id: str, sid: str | None) -> None:
        """A local socket left (``sid``: the conversation it had joined)."""


class LocalOwnership(OwnershipPolicy):
    """One server process: every conversation is ours."""
