"""Stop, then start again: a start of a conversation waits for the teardown of that
conversation's previous sandbox (and only that one), and a failed start can be retried.

The server runs for real (app, lifespan, manager, sessions); the sandbox is the fake one of
``fakes.py`` with a teardown the test holds open until it lets it finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.server.app import create_app
from openhands.server.conversation_manager.standalone_conversation_manager import (
    StandaloneConversationManager,
)
from openhands.server.server_config import ServerConfig
from openhands.server.session.agent_session import AgentSession
from tests.unit.server.conftest import Harness, running
from tests.unit.server.fakes import FakeRuntime, fake_agent_session_cls
from tests.unit.server.test_conversation_routes import create

DEADLINE = 60.0


class Sandboxes:
    """What the fake sandboxes did, in order, and the teardowns the test holds open."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []
        self.held: set[str] = set()  # conversations whose teardown waits for release()
        self.released = threading.Event()
        self.fail_next = False  # the next connect fails
        self._lock = threading.Lock()

    def record(self, what: str, sid: str) -> None:
        with self._lock:
            self.log.append((what, sid))

    def count(self, what: str, sid: str) -> int:
        with self._lock:
            return self.log.count((what, sid))

    def index(self, what: str, sid: str, nth: int = 0) -> int:
        with self._lock:
            found = [i for i, entry in enumerate(self.log) if entry == (what, sid)]
        return found[nth]


def session_cls(workspace: Path, sandboxes: Sandboxes) -> type[AgentSession]:
    base = fake_agent_session_cls(workspace)

    class RecordingRuntime(FakeRuntime):
        def __init__(self, root: Path, sid: str) -> None:
            super().__init__(root)
            self.sid = sid

        def close(self) -> None:
            sandboxes.record("teardown-begin", self.sid)
            if self.sid in sandboxes.held:
                assert sandboxes.released.wait(DEADLINE)
            sandboxes.record("teardown-end", self.sid)
            super().close()

    class RecordingSession(base):  # type: ignore[valid-type, misc]
        async def _create_runtime(self, config: Any, agent: Any, init_data: Any) -> bool:
            sandboxes.record("connect", self.sid)
            self.runtime = RecordingRuntime(workspace, self.sid)
            if sandboxes.fail_next:
                sandboxes.fail_next = False
                self.status_callback("error", "STATUS$ERROR_RUNTIME_DISCONNECTED", "gone")
                return False
            self.runtime_connected = True
            self.status_callback("info", "STATUS$READY", "Runtime is ready")
            return True

    return RecordingSession


@contextlib.asynccontextmanager
async def harness_with(
    config: OpenHandsConfig, server: ServerConfig, workspace: Path, sandboxes: Sandboxes
) -> AsyncIterator[Harness]:
    cls = session_cls(workspace, sandboxes)

    def manager_factory(sio: Any, cfg: Any, store: Any, srv: ServerConfig, listener: Any) -> Any:
        return StandaloneConversationManager(
            sio, cfg, store, cleanup_interval=srv.cleanup_interval_seconds, agent_session_cls=cls
        )

    app = create_app(config, server, manager_factory=manager_factory)
    async with running(app, workspace) as harness:
        await harness.store_settings()
        yield harness


async def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def agent_started(harness: Harness, sid: str) -> bool:
    session = harness.manager.get_agent_session(sid)
    return session is not None and session.controller is not None


def failed(harness: Harness, sid: str) -> bool:
    session = harness.manager.get_agent_session(sid)
    return session is not None and session.start_failed


@pytest.fixture
def sandboxes() -> Sandboxes:
    return Sandboxes()


async def test_start_waits_for_its_own_teardown_not_for_others(
    app_config, server_config, workspace, sandboxes
) -> None:
    async with harness_with(app_config, server_config, workspace, sandboxes) as harness:
        first = await create(harness)
        await until(lambda: agent_started(harness, first), "the first start")
        sandboxes.held.add(first)

        stopped = await harness.client.post(f"/api/conversations/{first}/stop")
        assert stopped.json()["message"] == "Conversation stopped successfully"
        await until(lambda: sandboxes.count("teardown-begin", first) == 1, "the teardown")
        restarted = await harness.client.post(f"/api/conversations/{first}/start", json={})
        assert restarted.status_code == 200
        assert restarted.json()["conversation_status"] == "STARTING"

        # Another conversation starts (and even stops and starts again) meanwhile...
        other = await create(harness)
        await until(lambda: agent_started(harness, other), "the other conversation's start")
        await harness.client.post(f"/api/conversations/{other}/stop")
        await harness.client.post(f"/api/conversations/{other}/start", json={})
        await until(lambda: sandboxes.count("connect", other) == 2, "the other's restart")
        # ...while the restart of the first still waits for its own sandbox to go.
        assert sandboxes.count("connect", first) == 1
        assert sandboxes.count("teardown-end", first) == 0
        info = (await harness.client.get(f"/api/conversations/{first}")).json()
        assert info["status"] == "STARTING"

        sandboxes.released.set()
        await until(lambda: agent_started(harness, first), "the restart of the first")
        assert sandboxes.index("teardown-end", first) < sandboxes.index("connect", first, 1)


async def test_a_stop_while_waiting_for_the_teardown_cancels_the_start(
    app_config, server_config, workspace, sandboxes
) -> None:
    async with harness_with(app_config, server_config, workspace, sandboxes) as harness:
        sid = await create(harness)
        await until(lambda: agent_started(harness, sid), "the start")
        sandboxes.held.add(sid)
        await harness.client.post(f"/api/conversations/{sid}/stop")
        await harness.client.post(f"/api/conversations/{sid}/start", json={})
        waiting = harness.manager.get_agent_session(sid)
        assert waiting is not None
        await harness.client.post(f"/api/conversations/{sid}/stop")
        sandboxes.released.set()
        await harness.manager.wait_for_teardown(sid)
        # A third start is the only one that reaches the sandbox again.
        await harness.client.post(f"/api/conversations/{sid}/start", json={})
        await until(lambda: agent_started(harness, sid), "the third start")
        assert sandboxes.count("connect", sid) == 2
        assert waiting.is_closed and waiting.runtime is None


async def test_a_failed_start_can_be_started_again(
    app_config, server_config, workspace, sandboxes
) -> None:
    async with harness_with(app_config, server_config, workspace, sandboxes) as harness:
        sandboxes.fail_next = True  # the first start cannot reach its sandbox
        sid = await create(harness)
        await until(lambda: failed(harness, sid), "the failed start")
        info = (await harness.client.get(f"/api/conversations/{sid}")).json()
        assert info["status"] == "STARTING"
        assert info["runtime_status"] == "STATUS$ERROR_RUNTIME_DISCONNECTED"

        # POST /start on the failed loop starts afresh (after its sandbox is torn down).
        restarted = await harness.client.post(f"/api/conversations/{sid}/start", json={})
        assert restarted.status_code == 200
        await until(lambda: agent_started(harness, sid), "the second start")
        assert sandboxes.count("connect", sid) == 2
        assert sandboxes.index("teardown-end", sid) < sandboxes.index("connect", sid, 1)
        info = (await harness.client.get(f"/api/conversations/{sid}")).json()
        assert (info["status"], info["runtime_status"]) == ("RUNNING", "STATUS$READY")

        # And the UI's way out (stop, then start) works too.
        await harness.client.post(f"/api/conversations/{sid}/stop")
        await harness.client.post(f"/api/conversations/{sid}/start", json={})
        await until(lambda: sandboxes.count("connect", sid) == 3, "the third start")
        await until(lambda: agent_started(harness, sid), "the third start's agent")
