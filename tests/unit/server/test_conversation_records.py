"""StandaloneConversationManager's parts working together: REST runtimes shared by reference
count and closed with their conversation's loop, nothing kept for a conversation nobody
uses, and starts that wait for every teardown of their own conversation."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import SecretStr

from openhands.runtime.utils.teardowns import SANDBOX_TEARDOWNS
from openhands.server.conversation_manager.loop_registry import teardown_key
from openhands.server.conversation_manager.standalone_conversation_manager import (
    StandaloneConversationManager,
)
from openhands.server.session.conversation_init_data import ConversationInitData
from tests.unit.server.test_conversation_routes import create


class FakeAttached:
    """Stands in for a ServerConversation whose runtime was attached for REST calls."""

    owns_runtime = True

    def __init__(self, sid: str) -> None:
        self.sid = sid
        self.disconnects = 0

    async def disconnect(self) -> None:
        self.disconnects += 1


@pytest.fixture
def attached(harness, monkeypatch: pytest.MonkeyPatch) -> list[FakeAttached]:
    made: list[FakeAttached] = []

    async def attach(sid: str, user_id: str | None) -> FakeAttached:
        made.append(FakeAttached(sid))
        return made[-1]

    monkeypatch.setattr(harness.manager, "_attach_runtime", attach)
    return made


async def stopped_conversation(harness) -> str:
    await harness.store_settings()
    sid = await create(harness)
    await harness.manager.close_session(sid)
    await harness.manager.wait_for_teardown(sid)
    return sid


async def test_rest_runtime_is_shared_and_closed_by_the_cleanup_once_idle(
    harness, attached
) -> None:
    manager: StandaloneConversationManager = harness.manager
    sid = await stopped_conversation(harness)
    first = await manager.attach_to_conversation(sid)
    second = await manager.attach_to_conversation(sid)
    assert first is second and len(attached) == 1

    await manager.detach_from_conversation(first)
    await manager._cleanup_once()
    assert attached[0].disconnects == 0  # the second request still uses it
    await manager.detach_from_conversation(second)
    again = await manager.attach_to_conversation(sid)
    assert again is first  # idle, not cleaned up yet: reused
    await manager.detach_from_conversation(again)

    await manager._cleanup_once()
    assert attached[0].disconnects == 1
    # Nothing is left for the conversation in any part of the manager.
    assert manager.loops.get(sid) is None
    assert not manager.rest_runtimes.holds(sid)
    assert not manager.rooms.has_delivery(sid)


async def test_closing_a_loop_closes_its_rest_runtime_when_no_request_uses_it(
    harness, attached
) -> None:
    manager: StandaloneConversationManager = harness.manager
    sid = await stopped_conversation(harness)
    in_use = await manager.attach_to_conversation(sid)
    await manager.maybe_start_agent_loop(
        sid, ConversationInitData(llm_api_key=SecretStr("x")), None
    )
    await manager.close_session(sid)
    assert manager.loops.get(sid) is None
    assert attached[0].disconnects == 0  # its request is still running
    await manager.detach_from_conversation(in_use)
    assert attached[0].disconnects == 1
    await manager.detach_from_conversation(in_use)  # a stray second detach changes nothing
    assert attached[0].disconnects == 1

    idle = await manager.attach_to_conversation(sid)
    await manager.detach_from_conversation(idle)
    await manager.maybe_start_agent_loop(
        sid, ConversationInitData(llm_api_key=SecretStr("x")), None
    )
    await manager.close_session(sid)
    assert attached[1].disconnects == 1
    await manager.wait_for_teardown(sid)
    assert not SANDBOX_TEARDOWNS.in_progress(teardown_key(sid))
    assert manager.rest_runtimes.in_use == 0


async def test_a_start_waits_for_every_teardown_of_its_conversation(harness) -> None:
    manager: StandaloneConversationManager = harness.manager
    teardowns = manager.loops.teardowns
    for sid in ("a", "a", "b"):  # two overlapping teardowns of "a", one of "b"
        teardowns.begin(teardown_key(sid))
    waiting = asyncio.create_task(manager.wait_for_teardown("a"))
    teardowns.end(teardown_key("a"))
    for _ in range(10):  # let the waiter run: it must keep waiting for the other one
        await asyncio.sleep(0)
    assert not waiting.done()
    teardowns.end(teardown_key("a"))
    await asyncio.wait_for(waiting, 10)  # "b"'s teardown is still running: not waited for
    assert teardowns.in_progress(teardown_key("b"))
    teardowns.end(teardown_key("b"))
