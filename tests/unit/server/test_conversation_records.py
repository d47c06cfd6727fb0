"""StandaloneConversationManager keeps one record per conversation: REST runtimes shared by
reference count, records closed whole, and starts that wait for every teardown of their own
conversation."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import SecretStr

from openhands.server.conversation_manager.standalone_conversation_manager import (
    ConversationRecord,
    StandaloneConversationManager,
)
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.server.session.delivery import RoomDelivery
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
    assert sid not in manager._conversations  # nothing left in the record: dropped


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
    assert sid not in manager._conversations
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
    await asyncio.sleep(0)  # the teardowns' done callbacks run on the next loop pass
    assert not manager._closing


async def test_a_start_waits_for_every_teardown_of_its_conversation(harness) -> None:
    manager: StandaloneConversationManager = harness.manager
    loop = asyncio.get_running_loop()

    def closing(sid: str) -> asyncio.Future[None]:
        record = ConversationRecord(sid, RoomDelivery(manager.sio, sid))
        record.gone = loop.create_future()
        manager._closing.add(record)
        return record.gone

    older, newer, other = closing("a"), closing("a"), closing("b")
    waiting = asyncio.create_task(manager.wait_for_teardown("a"))
    newer.set_result(None)
    for _ in range(10):  # let the waiter run: it must keep waiting for the older one
        await asyncio.sleep(0)
    assert not waiting.done()
    older.set_result(None)
    await asyncio.wait_for(waiting, 10)  # "b"'s teardown is still running: not waited for
    assert not other.done()
    other.set_result(None)
