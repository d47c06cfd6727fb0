"""LoopRegistry: the loops running in this process, and the teardown of their sandboxes."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any, cast

import pytest

from openhands.runtime.utils.teardowns import Teardowns
from openhands.server.conversation_manager.loop_registry import (
    LoopRegistry,
    RunningLoop,
    oldest_first,
    teardown_key,
)
from openhands.server.session.session import Session
from openhands.storage.conversation.conversation_store import ConversationStore


def loop(user_id: str | None = None, teardown: Any = None, failed: bool = False) -> RunningLoop:
    agent_session = SimpleNamespace(teardown=teardown, start_failed=failed)
    session = SimpleNamespace(user_id=user_id, agent_session=agent_session)
    return RunningLoop(cast(Session, session))


async def test_running_filters_by_user_and_conversation() -> None:
    registry = LoopRegistry(Teardowns())
    registry.add("a", loop("u1"))
    registry.add("b", loop("u2"))
    assert registry.running() == {"a", "b"}
    assert registry.running(user_id="u1") == {"a"}
    assert registry.running(filter_to_sids={"b", "z"}) == {"b"}


async def test_a_detached_loop_counts_as_tearing_down_until_its_sandbox_is_gone() -> None:
    teardowns = Teardowns()
    registry = LoopRegistry(teardowns)
    sandbox_gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    registry.add("a", loop(teardown=sandbox_gone))
    detached = registry.detach("a")
    assert detached is not None and registry.get("a") is None
    assert registry.detach("a") is None  # a second stop finds nothing
    assert teardowns.in_progress(teardown_key("a"))
    registry.teardown_over_when_done("a", detached)  # the session closed; sandbox not yet
    assert teardowns.in_progress(teardown_key("a"))
    waiting = asyncio.create_task(registry.wait_for_all_teardowns(60))
    await asyncio.sleep(0)
    assert not waiting.done()
    sandbox_gone.set_result(None)
    await waiting
    assert not teardowns.in_progress(teardown_key("a"))


async def test_a_loop_without_a_sandbox_teardown_is_over_at_once() -> None:
    teardowns = Teardowns()
    registry = LoopRegistry(teardowns)
    registry.add("a", loop())
    registry.teardown_over_when_done("a", cast(RunningLoop, registry.detach("a")))
    assert teardowns.keys() == set()


def test_only_an_explicit_failure_of_a_finished_start_counts() -> None:
    assert loop(failed=True).start_failed
    assert not loop(failed=False).start_failed
    unknown = loop()
    unknown.session.agent_session.start_failed = None  # an extension's own session class
    assert not unknown.start_failed


async def test_a_second_loop_of_one_conversation_is_refused() -> None:
    registry = LoopRegistry(Teardowns())
    registry.add("a", loop())
    with pytest.raises(ValueError):
        registry.add("a", loop())


async def test_eviction_order_is_least_recently_updated_first() -> None:
    stamps = {"new": datetime(2025, 1, 2, tzinfo=UTC), "old": datetime(2024, 1, 1, tzinfo=UTC)}

    class Store:
        async def get_metadata(self, sid: str) -> Any:
            if sid == "unknown":
                raise FileNotFoundError(sid)
            return SimpleNamespace(last_updated_at=stamps[sid])

    order = await oldest_first(cast(ConversationStore, Store()), {"new", "old", "unknown"})
    assert order == ["unknown", "old", "new"]
