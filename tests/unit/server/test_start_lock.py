"""No lock of the conversation manager is held while another conversation starts or
stops: a socket joining conversation B goes through while the close of an evicted
conversation A is still blocked (an evicted loop that is still starting can take up to
90 s to close)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from openhands.server.conversation_manager.loop_registry import teardown_key
from tests.unit.server.socket_client import Recorder
from tests.unit.server.test_conversation_routes import create, wait_running
from tests.unit.server.test_socket import live


async def test_a_join_goes_through_while_an_evicted_loop_is_still_closing(
    app_config, server_config, workspace
) -> None:
    async with live(app_config, server_config, workspace) as (harness, url):
        await harness.store_settings()
        manager = harness.manager
        a = await create(harness)
        b = await create(harness)
        for sid in (a, b):
            await wait_running(harness, sid)
        store = harness.services.conversation_store
        metadata = await store.get_metadata(a)
        long_ago = datetime(2000, 1, 1, tzinfo=UTC)
        await store.save_metadata(metadata.model_copy(update={"last_updated_at": long_ago}))
        manager.config.max_concurrent_conversations = 2  # a third start evicts ``a``

        closing, release = asyncio.Event(), asyncio.Event()
        session_a = manager.loops.session(a)
        original_close = session_a.close

        async def blocked_close() -> None:
            closing.set()
            await release.wait()
            await original_close()

        session_a.close = blocked_close  # type: ignore[method-assign]
        third = asyncio.create_task(create(harness))
        watcher = Recorder()
        try:
            await closing.wait()  # ``a`` was evicted and its close is blocked
            assert manager.loops.teardowns.in_progress(teardown_key(a))
            await watcher.connect(url, conversation_id=b)  # the join of ``b`` completes
            assert await manager.get_connections(filter_to_sids={b})
            assert not release.is_set() and session_a.is_alive  # ``a`` is still closing
        finally:
            release.set()
            await watcher.close()
        c = await third
        assert await manager.get_running_agent_loops() == {b, c}
        await manager.wait_for_teardown(a)
        assert not session_a.is_alive
