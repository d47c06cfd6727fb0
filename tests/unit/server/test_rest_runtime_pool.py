"""RestRuntimePool: the runtimes REST calls borrow while no agent loop runs."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from openhands.server.conversation_manager.rest_runtime_pool import RestRuntimePool
from openhands.server.session.server_conversation import ServerConversation


class Handle:
    """Stands in for a ServerConversation attached to a sandbox."""

    def __init__(self, sid: str) -> None:
        self.sid = sid
        self.disconnects = 0

    async def disconnect(self) -> None:
        self.disconnects += 1


class Attacher:
    def __init__(self) -> None:
        self.made: list[Handle] = []
        self.gates: dict[str, asyncio.Event] = {}

    async def __call__(self, sid: str, user_id: str | None) -> Any:
        if sid in self.gates:
            await self.gates[sid].wait()
        if sid == "no-sandbox":
            return None
        self.made.append(Handle(sid))
        return self.made[-1]


def handle(value: Any) -> ServerConversation:
    return cast(ServerConversation, value)


async def test_requests_share_one_runtime_and_the_cleanup_closes_it_once_idle() -> None:
    attach = Attacher()
    pool = RestRuntimePool(attach)
    first = await pool.borrow("a", None)
    second = await pool.borrow("a", None)
    assert first is second and len(attach.made) == 1
    await pool.give_back(handle(first))
    await pool.close_idle()
    assert attach.made[0].disconnects == 0  # still used by the second request
    await pool.give_back(handle(second))
    assert await pool.borrow("a", None) is first  # idle but not cleaned up yet: reused
    await pool.give_back(handle(first))
    await pool.close_idle()
    assert attach.made[0].disconnects == 1 and not pool.holds("a")


async def test_retiring_closes_an_idle_runtime_now_and_a_used_one_with_its_last_request() -> None:
    attach = Attacher()
    pool = RestRuntimePool(attach)
    used = await pool.borrow("a", None)
    await pool.retire("a")
    assert attach.made[0].disconnects == 0 and pool.in_use == 1
    assert await pool.borrow("a", None) is not used  # a retired runtime is never lent again
    await pool.give_back(handle(used))
    assert attach.made[0].disconnects == 1
    await pool.give_back(handle(used))  # a stray second give-back changes nothing
    assert attach.made[0].disconnects == 1
    await pool.give_back(handle(attach.made[1]))
    await pool.retire("a")
    assert attach.made[1].disconnects == 1 and pool.in_use == 0


async def test_no_sandbox_lends_nothing() -> None:
    pool = RestRuntimePool(Attacher())
    assert await pool.borrow("no-sandbox", None) is None
    assert not pool.holds("no-sandbox")


async def test_a_slow_attach_does_not_hold_up_other_conversations() -> None:
    attach = Attacher()
    attach.gates["slow"] = asyncio.Event()
    pool = RestRuntimePool(attach)
    slow = asyncio.create_task(pool.borrow("slow", None))
    await asyncio.sleep(0)
    assert (await pool.borrow("fast", None)) is not None  # while "slow" still attaches
    assert not slow.done()
    attach.gates["slow"].set()
    assert (await slow) is not None


async def test_close_all_disconnects_lent_and_retired_runtimes() -> None:
    attach = Attacher()
    pool = RestRuntimePool(attach)
    await pool.borrow("a", None)
    await pool.borrow("b", None)
    await pool.retire("b")
    await pool.close_all()
    assert [h.disconnects for h in attach.made] == [1, 1] and pool.in_use == 0
