"""The runtimes REST calls borrow while no agent loop runs (one role of the manager).

A per-conversation route (files, git, …) of a conversation without a loop attaches to its
sandbox. Attaching is slow, so concurrent and successive requests share one attached
runtime: ``borrow`` counts the requests using it and ``give_back`` uncounts them. An idle
one stays for reuse until ``close_idle`` (the manager's cleanup task). When the
conversation's loop is closed, ``retire`` closes it at once if idle, or when its last
request gives it back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from openhands.server.session.server_conversation import ServerConversation

Attach = Callable[[str, str | None], Awaitable[ServerConversation | None]]


@dataclass(eq=False)
class _Borrowed:
    handle: ServerConversation
    users: int


class RestRuntimePool:
    def __init__(self, attach: Attach) -> None:
        self._attach = attach
        # One attach at a time per conversation (concurrent first requests share it); other
        # conversations' requests never wait for it. Nothing else here awaits while it
        # changes the maps, so it needs no lock.
        self._attaching: dict[str, asyncio.Lock] = {}
        self._shared: dict[str, _Borrowed] = {}
        # Runtimes of closed conversations that a request still uses.
        self._retired: list[_Borrowed] = []

    def holds(self, sid: str) -> bool:
        return sid in self._shared

    @property
    def in_use(self) -> int:
        """How many runtimes requests are using or keep for reuse (for tests and status)."""
        return len(self._shared) + len(self._retired)

    async def borrow(self, sid: str, user_id: str | None) -> ServerConversation | None:
        """The shared runtime of ``sid`` (attached on first use); None if no sandbox answers."""
        # Kept once made (a few bytes per conversation): dropping one while a request waits
        # on it would let a second attach run beside the first.
        async with self._attaching.setdefault(sid, asyncio.Lock()):
            shared = self._shared.get(sid)
            if shared is not None:
                shared.users += 1  # from 0: an idle runtime the cleanup has not closed
                return shared.handle
            handle = await self._attach(sid, user_id)
            if handle is not None:
                self._shared[sid] = _Borrowed(handle, 1)
            return handle

    async def give_back(self, handle: ServerConversation) -> None:
        shared = self._shared.get(handle.sid)
        if shared is not None and shared.handle is handle:
            shared.users -= 1  # at 0 it stays for reuse until the next cleanup
            return
        retired = next((b for b in self._retired if b.handle is handle), None)
        if retired is None:
            return  # closed at shutdown already, or a stray second give-back
        retired.users -= 1
        if retired.users > 0:
            return
        self._retired.remove(retired)
        await handle.disconnect()

    async def retire(self, sid: str) -> None:
        """``sid``'s loop was closed: nobody may reuse its runtime any more."""
        shared = self._shared.pop(sid, None)
        if shared is None:
            return
        if shared.users > 0:
            self._retired.append(shared)  # closed by its last ``give_back``
            return
        await shared.handle.disconnect()

    async def close_idle(self) -> None:
        idle = [sid for sid, shared in self._shared.items() if shared.users == 0]
        handles = [self._shared.pop(sid).handle for sid in idle]
        for handle in handles:
            await handle.disconnect()

    async def close_all(self) -> None:
        handles = [b.handle for b in [*self._shared.values(), *self._retired]]
        self._shared.clear()
        self._retired.clear()
        for handle in handles:
            await handle.disconnect()
