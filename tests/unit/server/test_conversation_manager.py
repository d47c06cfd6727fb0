"""StandaloneConversationManager: the concurrency limit and the cleanup task (§8.3, §8.6)."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import socketio
from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.server.conversation_manager.standalone_conversation_manager import (
    DEFAULT_CLEANUP_INTERVAL_SECONDS,
    StandaloneConversationManager,
)
from openhands.server.monitoring import MonitoringListener
from openhands.server.server_config import ServerConfig
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.storage.memory import InMemoryFileStore
from tests.unit.server.conftest import build_app, running
from tests.unit.server.fakes import FakeRuntime
from tests.unit.server.socket_client import Recorder
from tests.unit.server.test_conversation_routes import create, wait_running
from tests.unit.server.test_socket import live


async def test_fourth_start_closes_the_least_recently_updated(
    app_config, server_config, workspace
) -> None:
    async with live(app_config, server_config, workspace) as (harness, url):
        await harness.store_settings()
        ids = [await create(harness) for _ in range(3)]
        for conversation_id in ids:
            await wait_running(harness, conversation_id)
        store = harness.services.conversation_store
        now = datetime.now(UTC)
        ages = {ids[0]: 5, ids[1]: 60, ids[2]: 1}  # minutes ago: ids[1] is the oldest
        for conversation_id, minutes in ages.items():
            metadata = await store.get_metadata(conversation_id)
            await store.save_metadata(
                metadata.model_copy(update={"last_updated_at": now - timedelta(minutes=minutes)})
            )
        watcher = Recorder()
        await watcher.connect(url, conversation_id=ids[1])
        try:
            fourth = await create(harness)
            running = await harness.manager.get_running_agent_loops()
            assert running == {ids[0], ids[2], fourth}
            status = await watcher.wait_for(
                lambda e: e.get("status_update") is True and e.get("type") == "error"
            )
            assert status == {
                "status_update": True,
                "type": "error",
                "id": "AGENT_ERROR$TOO_MANY_CONVERSATIONS",
                "message": (
                    "Too many conversations at once. If you are still using this one, try "
                    "reactivating it by prompting the agent to continue"
                ),
            }
            await asyncio.wait_for(watcher.disconnected.wait(), 10)
            info = (await harness.client.get(f"/api/conversations/{ids[1]}")).json()
            assert info["status"] == "STOPPED"
        finally:
            await watcher.close()


async def test_cleanup_with_zero_close_delay_keeps_running(harness) -> None:
    manager = harness.manager
    harness.services.config.sandbox.close_delay = 0
    manager.cleanup_interval = 0.01
    rounds = 0
    three_rounds = asyncio.Event()
    real_round = manager._cleanup_once

    async def counted_round() -> None:
        nonlocal rounds
        await real_round()
        rounds += 1
        if rounds == 3:
            three_rounds.set()

    manager._cleanup_once = counted_round  # type: ignore[method-assign]
    await manager.__aexit__(None, None, None)  # restart the task with the short interval
    await manager.__aenter__()
    await asyncio.wait_for(three_rounds.wait(), timeout=60)
    assert manager.cleanup_running


async def test_cleanup_closes_idle_loops_without_sockets(harness) -> None:
    await harness.store_settings()
    conversation_id = await create(harness)
    await wait_running(harness, conversation_id)
    manager = harness.manager
    session = manager.loops.session(conversation_id)
    while session.agent_state() is None:  # no controller yet: state unknown, never closed
        await asyncio.sleep(0.01)
    harness.services.config.sandbox.close_delay = 1
    session.last_active_ts -= 10
    await manager._cleanup_once()
    assert not await manager.is_agent_loop_running(conversation_id)


async def test_cleanup_keeps_busy_or_connected_loops(harness) -> None:
    await harness.store_settings()
    conversation_id = await create(harness, initial_user_msg="work")
    await wait_running(harness, conversation_id)
    manager = harness.manager
    session = manager.loops.session(conversation_id)
    harness.services.config.sandbox.close_delay = 1
    session.last_active_ts -= 10
    manager.rooms.connections["someone"] = conversation_id
    await manager._cleanup_once()
    assert await manager.is_agent_loop_running(conversation_id)


async def test_start_is_idempotent(harness) -> None:
    await harness.store_settings()
    conversation_id = await create(harness)
    manager = harness.manager
    init = ConversationInitData(llm_api_key=SecretStr("x"))
    first = manager.loops.session(conversation_id)
    await manager.maybe_start_agent_loop(conversation_id, init, None)
    assert manager.loops.session(conversation_id) is first


async def test_failed_runtime_reports_and_stays_starting(app_config, server_config, workspace):
    from tests.unit.server.conftest import build_app, running

    app = build_app(app_config, server_config, workspace, connect=False)
    async with running(app, workspace) as harness:
        await harness.store_settings()
        conversation_id = await create(harness)
        for _ in range(100):
            info = (await harness.client.get(f"/api/conversations/{conversation_id}")).json()
            if info["runtime_status"]:
                break
            await asyncio.sleep(0.02)
        assert info["status"] == "STARTING"
        assert info["runtime_status"] == "STATUS$ERROR_RUNTIME_DISCONNECTED"


async def test_shutdown_waits_for_a_sandbox_still_being_torn_down(
    app_config, server_config, workspace, monkeypatch
) -> None:
    """A stop right before the server shuts down: the sandbox teardown (run off the loop,
    nobody waits for it during normal operation) must finish before the server exits."""
    closed: list[str] = []

    def slow_close(self: FakeRuntime) -> None:
        time.sleep(0.5)
        self.closed = True
        closed.append("closed")

    monkeypatch.setattr(FakeRuntime, "close", slow_close)
    app = build_app(app_config, server_config, workspace)
    async with running(app, workspace) as harness:
        await harness.store_settings()
        conversation_id = await create(harness)
        await wait_running(harness, conversation_id)
        response = await harness.client.post(f"/api/conversations/{conversation_id}/stop")
        assert response.status_code == 200
        assert closed == []  # the stop answered without waiting for the teardown
    assert closed == ["closed"]


def test_the_manager_takes_the_reference_arguments_in_order() -> None:
    sio = socketio.AsyncServer(async_mode="asgi")
    server = ServerConfig(cleanup_interval_seconds=3.5)
    listener = MonitoringListener()
    manager = StandaloneConversationManager(
        sio, OpenHandsConfig(), InMemoryFileStore(), server, listener
    )
    assert manager.server_config is server
    assert manager.monitoring_listener is listener
    assert manager.cleanup_interval == 3.5
    built = StandaloneConversationManager.get_instance(
        sio, OpenHandsConfig(), InMemoryFileStore(), server, listener
    )
    assert built.cleanup_interval == 3.5 and built.monitoring_listener is listener
    # An extension's server config without the field keeps the default period.
    foreign = StandaloneConversationManager(
        sio,
        OpenHandsConfig(),
        InMemoryFileStore(),
        SimpleNamespace(),  # type: ignore[arg-type]
    )
    assert foreign.cleanup_interval == DEFAULT_CLEANUP_INTERVAL_SECONDS
    chosen = StandaloneConversationManager(
        sio, OpenHandsConfig(), InMemoryFileStore(), server, cleanup_interval=0.5
    )
    assert chosen.cleanup_interval == 0.5
