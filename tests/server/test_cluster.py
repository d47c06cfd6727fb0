"""Two server nodes behind nginx, sharing Redis and one file store (issue 13, server tier).

Real parts only: ``redis-server`` (with a password), two ``uvicorn`` processes running the
``ClusteredConversationManager`` over one ``file_store_path``, nginx round robin in front,
the suite's scripted LLM and LocalRuntime. Sockets use the WebSocket transport, as the UI
does, so each one stays on the node it reached.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import socketio

from openhands.core.config import OpenHandsConfig
from openhands.server.conversation_manager.clustered_conversation_manager import (
    ClusterConfigurationError,
    ClusteredConversationManager,
)
from openhands.server.conversation_manager.conversation_leases import lease_key
from openhands.storage.memory import InMemoryFileStore
from tests.server.helpers import (
    SuiteRecorder,
    all_events,
    assert_id_order,
    live_eligible,
    settings_body,
    stop,
    wait_agent_state,
    wait_status,
    with_id,
)
from tests.server.server_process import ServerProcess, config_toml
from tests.support.scripted_llm import ScriptedLLMServer
from tests.support.services import NginxService, RedisService

CLUSTERED = (
    "openhands.server.conversation_manager.clustered_conversation_manager."
    "ClusteredConversationManager"
)
PASSWORD = "cluster-test-password-5d1f"
DEADLINE = 60.0


@dataclass
class Cluster:
    a: ServerProcess
    b: ServerProcess
    nginx: NginxService
    redis: redis.Redis

    def lease_owner(self, conversation_id: str) -> str | None:
        owner = self.redis.hget(lease_key(conversation_id), "node")
        return owner.decode() if isinstance(owner, bytes) else None


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, llm: ScriptedLLMServer) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("cluster")
    shared = root / "shared"
    (shared / "workspace").mkdir(parents=True)
    config = config_toml(shared, max_concurrent_conversations=10)
    with contextlib.ExitStack() as stack:
        service = RedisService(root / "redis").start()
        stack.callback(service.stop)
        client = redis.Redis(port=service.port)
        client.config_set("requirepass", PASSWORD)
        client = redis.Redis(port=service.port, password=PASSWORD)
        stack.callback(client.close)
        env = {
            "REDIS_HOST": f"127.0.0.1:{service.port}",
            "REDIS_PASSWORD": PASSWORD,
            "CONVERSATION_MANAGER_CLASS": CLUSTERED,
        }
        nodes: list[ServerProcess] = []
        for name in ("a", "b"):
            node = ServerProcess(Path(root / name), env=env, config=config)
            node.extra_env["OPENHANDS_NODE_URL"] = node.url  # where the other node forwards
            stack.callback(node.stop)
            nodes.append(node)
        for node in nodes:
            node.start()
        start_server_settings(nodes[0], llm)
        upstreams = [f"127.0.0.1:{node.port}" for node in nodes]
        nginx = NginxService(root / "nginx", upstreams).start()
        stack.callback(nginx.stop)
        yield Cluster(nodes[0], nodes[1], nginx, client)


def start_server_settings(node: ServerProcess, llm: ScriptedLLMServer) -> None:
    """Store the LLM settings (in the shared store: one node is enough)."""
    response = httpx.post(f"{node.url}/api/settings", json=settings_body(llm.base_url))
    assert response.status_code == 200, response.text


@pytest.fixture
async def sockets() -> Any:
    made: list[SuiteRecorder] = []

    def new() -> SuiteRecorder:
        made.append(SuiteRecorder())
        return made[-1]

    yield new
    for recorder in made:
        with contextlib.suppress(Exception):
            await recorder.close()


async def _create(http: httpx.AsyncClient, message: str) -> str:
    created = await http.post("/api/conversations", json={"initial_user_msg": message})
    assert created.status_code == 200, created.text
    conversation_id: str = created.json()["conversation_id"]
    await wait_status(http, conversation_id, "RUNNING")
    await wait_agent_state(http, conversation_id, "awaiting_user_input")
    return conversation_id


def _agent_said(text: str) -> Any:
    return lambda e: (
        e.get("source") == "agent"
        and e.get("action") == "message"
        and e["args"].get("content") == text
    )


def _assert_delivered(events: list[dict[str, Any]], stored: dict[int, dict[str, Any]]) -> None:
    """Each id once, only stored ones, and every event both replay and live delivery send,
    from the first one the socket saw."""
    ids = [e["id"] for e in with_id(events)]
    assert len(ids) == len(set(ids)), "an event was sent twice"
    assert set(ids) <= set(stored), "an event that is not stored was sent"
    expected = {
        i
        for i, e in stored.items()
        if min(ids) <= i <= max(ids)
        and live_eligible(e)
        and e.get("observation") != "agent_state_changed"
        and e.get("action") != "recall"
    }
    assert expected <= set(ids), f"lost: {sorted(expected - set(ids))}"
    assert_id_order(events)


# --- (0) configuration ---------------------------------------------------------------------------


def test_the_clustered_manager_needs_redis() -> None:
    sio = socketio.AsyncServer(async_mode="asgi")
    with pytest.raises(ClusterConfigurationError, match="REDIS_HOST"):
        ClusteredConversationManager(sio, OpenHandsConfig(), InMemoryFileStore())


# --- (1) a conversation of node A watched and driven from node B ---------------------------------


async def test_a_socket_on_b_watches_and_drives_a_loop_on_a(cluster: Cluster, sockets) -> None:
    async with (
        httpx.AsyncClient(base_url=cluster.a.url, timeout=60) as on_a,
        httpx.AsyncClient(base_url=cluster.b.url, timeout=60) as on_b,
    ):
        conversation_id = await _create(on_a, "hello cluster")
        owner = cluster.lease_owner(conversation_id)
        assert owner is not None
        # B runs no loop, yet reports the one on A (from the lease).
        info = await wait_status(on_b, conversation_id, "RUNNING", timeout=DEADLINE)
        assert info["runtime_status"] == "STATUS$READY"
        listed = (await on_b.get("/api/conversations")).json()["results"]
        assert any(
            c["conversation_id"] == conversation_id and c["status"] == "RUNNING" for c in listed
        )

        # Sockets join on B while A's agent answers messages: the hand-over across nodes
        # loses and repeats nothing.
        tag = uuid.uuid4().hex[:6]
        watchers: list[SuiteRecorder] = []

        async def produce() -> None:
            for index in range(5):
                response = await on_a.post(
                    f"/api/conversations/{conversation_id}/message",
                    json={"message": f"seam {tag} {index}"},
                )
                assert response.json() == {"success": True}
                await asyncio.sleep(0.05)

        async def watch() -> None:
            for _ in range(2):
                socket = sockets()
                await socket.connect(cluster.b.url, conversation_id=conversation_id)
                watchers.append(socket)
                await asyncio.sleep(0.1)

        await asyncio.gather(produce(), watch())

        # A message through B's REST reaches the agent on A, and its answer reaches B's sockets.
        response = await on_b.post(
            f"/api/conversations/{conversation_id}/message", json={"message": f"via b {tag}"}
        )
        assert response.json() == {"success": True}
        for socket in watchers:
            await socket.wait_for(_agent_said(f"echo: via b {tag}"), timeout=DEADLINE)
        # So does an action sent on a socket connected to B.
        await watchers[0].emit(
            "oh_user_action", {"action": "message", "args": {"content": f"socket {tag}"}}
        )
        reply = await watchers[1].wait_for(_agent_said(f"echo: socket {tag}"), timeout=DEADLINE)
        assert cluster.lease_owner(conversation_id) == owner  # still A's loop

        stored = {e["id"]: e for e in await all_events(on_a, conversation_id)}
        assert stored[reply["id"]]["args"]["content"] == f"echo: socket {tag}"
        for socket in watchers:
            await socket.wait_for(lambda e, last=reply["id"]: e.get("id") == last)
            _assert_delivered(socket.events, stored)
        await stop(on_b, conversation_id)  # forwarded to A
        await wait_status(on_a, conversation_id, "STOPPED", timeout=DEADLINE)
        assert cluster.lease_owner(conversation_id) is None


async def test_conversation_routes_are_served_by_the_owner_from_any_node(
    cluster: Cluster,
) -> None:
    """The files, git and VS Code routes need the loop's sandbox: B passes them to A."""
    async with (
        httpx.AsyncClient(base_url=cluster.a.url, timeout=60) as on_a,
        httpx.AsyncClient(base_url=cluster.b.url, timeout=60) as on_b,
    ):
        name = f"made-{uuid.uuid4().hex[:6]}.txt"
        conversation_id = await _create(on_a, f"run: echo from-the-agent > {name}")
        route = f"/api/conversations/{conversation_id}"
        on_owner = await on_a.get(f"{route}/list-files")
        forwarded = await on_b.get(f"{route}/list-files")
        assert on_owner.status_code == 200, on_owner.text
        assert forwarded.status_code == 200, forwarded.text
        assert name in forwarded.json()
        assert forwarded.json() == on_owner.json()
        read = await on_b.get(f"{route}/select-file", params={"file": name})
        assert (read.status_code, read.json()) == (200, {"code": "from-the-agent\n"})
        # Bodies travel too: an upload through B lands in A's sandbox.
        uploaded = await on_b.post(
            f"{route}/upload-files", files={"files": ("up.txt", b"uploaded via b\n")}
        )
        assert uploaded.status_code == 200, uploaded.text
        read = await on_a.get(f"{route}/select-file", params={"file": "up.txt"})
        assert read.json() == {"code": "uploaded via b\n"}
        # Errors come back unchanged.
        missing = await on_b.get(f"{route}/select-file", params={"file": "nope.txt"})
        assert (
            missing.status_code
            == (await on_a.get(f"{route}/select-file", params={"file": "nope.txt"})).status_code
        )
        await stop(on_b, conversation_id)
        await wait_status(on_a, conversation_id, "STOPPED", timeout=DEADLINE)


# --- (3) the lease moves: stop on one node, start on the other -----------------------------------


async def test_the_lease_moves_between_nodes(cluster: Cluster) -> None:
    async with (
        httpx.AsyncClient(base_url=cluster.a.url, timeout=60) as on_a,
        httpx.AsyncClient(base_url=cluster.b.url, timeout=60) as on_b,
    ):
        conversation_id = await _create(on_b, "hello b")
        node_b = cluster.lease_owner(conversation_id)
        assert node_b is not None
        path = f"/api/conversations/{conversation_id}"
        # A learns B's loop status from the lease, which B renews every second.
        await wait_status(on_a, conversation_id, "RUNNING", timeout=DEADLINE)
        assert (await stop(on_a, conversation_id)).json()["conversation_status"] == "RUNNING"
        await wait_status(on_b, conversation_id, "STOPPED", timeout=DEADLINE)
        assert cluster.lease_owner(conversation_id) is None

        started = await on_a.post(f"{path}/start", json={})
        assert started.status_code == 200, started.text
        await wait_status(on_b, conversation_id, "RUNNING")
        node_a = cluster.lease_owner(conversation_id)
        assert node_a is not None and node_a != node_b
        before = max(e["id"] for e in await all_events(on_a, conversation_id))
        # A message through B is forwarded to the new owner, A.
        response = await on_b.post(f"{path}/message", json={"message": "moved to a"})
        assert response.json() == {"success": True}
        events = await wait_agent_state(
            on_a,
            conversation_id,
            "awaiting_user_input",
            after_id=before,
            until=lambda events: any(_agent_said("echo: moved to a")(e) for e in events),
        )
        assert any(_agent_said("echo: moved to a")(e) for e in events)

        await stop(on_b, conversation_id)
        await wait_status(on_a, conversation_id, "STOPPED", timeout=DEADLINE)
        assert (await on_b.post(f"{path}/start", json={})).status_code == 200
        await wait_status(on_a, conversation_id, "RUNNING")
        assert cluster.lease_owner(conversation_id) == node_b  # and back
        await stop(on_a, conversation_id)
        assert cluster.lease_owner(conversation_id) is None


# --- (2) the owner is killed mid-run; the other node takes over -----------------------------------


async def test_a_killed_owner_is_taken_over(cluster: Cluster, sockets) -> None:
    async with (
        httpx.AsyncClient(base_url=cluster.a.url, timeout=60) as on_a,
        httpx.AsyncClient(base_url=cluster.nginx.url, timeout=60) as front,
    ):
        conversation_id = await _create(on_a, "hello owner")
        # B's socket watches the loop on A and is not disconnected by the kill: B takes
        # the conversation over by itself and sends that socket what it missed.
        bystander = sockets()
        await bystander.connect(cluster.b.url, conversation_id=conversation_id)
        watcher = sockets()
        await watcher.connect(cluster.a.url, conversation_id=conversation_id)
        await watcher.emit(
            "oh_user_action", {"action": "message", "args": {"content": "run: sleep 3"}}
        )
        await watcher.wait_for(
            lambda e: e.get("action") == "run" and e["args"].get("command") == "sleep 3",
            timeout=DEADLINE,
        )
        cluster.a.kill()
        await _wait(lambda: watcher.disconnected.is_set(), "the socket on A to drop")
        before = [dict(e) for e in with_id(watcher.events)]
        latest = max(e["id"] for e in before)

        # The client reconnects through nginx (which now only reaches B) with its last id.
        again = sockets()
        await _connect_until_accepted(again, cluster.nginx.url, conversation_id, latest)
        await wait_status(front, conversation_id, "RUNNING")
        await wait_agent_state(front, conversation_id, "awaiting_user_input", after_id=latest)
        tag = uuid.uuid4().hex[:6]
        response = await front.post(
            f"/api/conversations/{conversation_id}/message", json={"message": f"after {tag}"}
        )
        assert response.json() == {"success": True}
        # The resumed agent answers it (the run cut short by the kill may be redone first).
        sent = await again.wait_for(
            lambda e: e.get("source") == "user" and e.get("message") == f"after {tag}"
        )
        reply = await again.wait_for(
            lambda e: (
                e.get("source") == "agent" and e.get("action") == "message" and e["id"] > sent["id"]
            ),
            timeout=DEADLINE,
        )

        stored = {e["id"]: e for e in await all_events(front, conversation_id)}
        for event in before:  # what the client saw before the kill is stored, unchanged
            kept = dict(stored[event["id"]])
            if event["source"] != kept["source"] and kept["source"] == "environment":
                kept["source"] = "agent"  # the live rewrite (server-api §7.5)
            assert event == kept
        after = with_id(again.events)
        assert min(e["id"] for e in after) > latest
        assert max(e["id"] for e in after) >= reply["id"]
        _assert_delivered(after, stored)
        assert set(stored) == set(range(len(stored)))  # the store itself has no gap
        await bystander.wait_for(lambda e: e.get("id") == reply["id"])
        assert not bystander.disconnected.is_set()
        _assert_delivered(bystander.events, stored)

        # A graceful shutdown releases the lease; no log line shows the Redis password.
        cluster.b.stop()
        assert cluster.lease_owner(conversation_id) is None
        for node in (cluster.a, cluster.b):
            assert PASSWORD not in node.log_path.read_text(errors="replace")


async def _wait(condition: Any, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def _connect_until_accepted(
    socket: SuiteRecorder, url: str, conversation_id: str, latest: int
) -> None:
    deadline = time.monotonic() + DEADLINE
    while True:
        try:
            await socket.connect(url, conversation_id=conversation_id, latest_event_id=latest)
            return
        except socketio.exceptions.ConnectionError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)
