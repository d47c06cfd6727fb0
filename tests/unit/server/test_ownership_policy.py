"""The manager asks its ownership policy wherever another node may run a conversation:
a policy saying "elsewhere" keeps every loop, sandbox and action off this process."""

from __future__ import annotations

from typing import Any

import pytest
import socketio

from openhands.core.config import OpenHandsConfig
from openhands.server.conversation_manager.conversation_manager import (
    AgentLoopInfo,
    NoConversationError,
)
from openhands.server.conversation_manager.ownership import LocalOwnership, OwnershipPolicy
from openhands.server.conversation_manager.standalone_conversation_manager import (
    StandaloneConversationManager,
)
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.storage.memory import InMemoryFileStore


class Elsewhere(OwnershipPolicy):
    """Every conversation runs on node "n2"; records what the manager handed over."""

    def __init__(self) -> None:
        self.dispatched: list[tuple[str, dict[str, Any]]] = []
        self.closed: list[str] = []

    async def claim(
        self, sid: str, init_data: ConversationInitData, user_id: str | None
    ) -> AgentLoopInfo | None:
        return AgentLoopInfo(sid, f"/api/conversations/{sid}", None)

    async def remote_loops(
        self, user_id: str | None, filter_to_sids: set[str] | None
    ) -> list[AgentLoopInfo]:
        return [AgentLoopInfo("far", "/api/conversations/far", None)]

    async def runs_elsewhere(self, sid: str) -> bool:
        return True

    async def dispatch_elsewhere(self, sid: str, data: dict[str, Any]) -> None:
        self.dispatched.append((sid, data))

    async def close_elsewhere(self, sid: str) -> None:
        self.closed.append(sid)


def manager_with(policy: OwnershipPolicy) -> StandaloneConversationManager:
    sio = socketio.AsyncServer(async_mode="asgi")
    return StandaloneConversationManager(
        sio, OpenHandsConfig(), InMemoryFileStore(), ownership=policy
    )


async def test_a_conversation_owned_elsewhere_is_never_run_or_attached_here() -> None:
    policy = Elsewhere()
    manager = manager_with(policy)
    info = await manager.maybe_start_agent_loop("far", ConversationInitData(), None)
    assert info.conversation_id == "far" and manager.loops.get("far") is None
    assert await manager.attach_to_conversation("far") is None  # its sandbox is not borrowed
    assert manager.rest_runtimes.in_use == 0
    await manager.send_event_to_conversation("far", {"action": "message"})
    assert policy.dispatched == [("far", {"action": "message"})]
    await manager.close_session("far")
    assert policy.closed == ["far"]
    assert await manager.get_running_agent_loops() == {"far"}
    assert [i.conversation_id for i in await manager.get_agent_loop_info()] == ["far"]


async def test_the_local_policy_runs_everything_here() -> None:
    manager = manager_with(LocalOwnership())
    assert await manager.get_running_agent_loops() == set()
    with pytest.raises(NoConversationError):
        await manager.send_event_to_conversation("none", {"action": "message"})
    assert await manager.ownership.owner_url("none") is None


def test_the_clustered_manager_only_supplies_its_policy() -> None:
    from openhands.server.conversation_manager.clustered_conversation_manager import (
        ClusteredConversationManager,
    )

    own = set(vars(ClusteredConversationManager))
    overridden = {
        name for name in own if callable(getattr(StandaloneConversationManager, name, None))
    }
    assert overridden == {"__init__"}
