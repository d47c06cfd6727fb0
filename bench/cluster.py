"""Cluster benchmark (issue 13): N conversations over 2 clustered nodes vs 1 node.

Both setups sit behind nginx (round robin, no sticky sessions) and share one file store;
the 2-node setup runs the ClusteredConversationManager over Redis, the 1-node one the
default StandaloneConversationManager. Every conversation runs CodeActAgent on LocalRuntime
against the scripted LLM of the server suite (``tests/server/helpers.scripted_agent``):

1. ``POST /api/conversations`` through nginx, then wait for RUNNING;
2. a Socket.IO client (WebSocket transport) connects through nginx;
3. ``POST …/message`` through nginx; the event latency is the time from that POST until
   the client receives the agent's reply (``echo: …``) as an ``oh_event``.

Prints wall time (first POST → last reply), errors and p50/p99 event latency per setup.
Run: ``python bench/cluster.py [--conversations 50]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx
import socketio

from tests.server.helpers import scripted_agent, settings_body
from tests.server.server_process import ServerProcess, config_toml
from tests.support.scripted_llm import ScriptedLLMServer
from tests.support.services import NginxService, RedisService

CLUSTERED = (
    "openhands.server.conversation_manager.clustered_conversation_manager."
    "ClusteredConversationManager"
)
TIMEOUT = 600.0


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _wait_running(http: httpx.AsyncClient, sid: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError, ValueError):
            info = (await http.get(f"/api/conversations/{sid}")).json()
            if info and info["status"] == "RUNNING" and info["runtime_status"] == "STATUS$READY":
                return
        await asyncio.sleep(0.5)
    raise TimeoutError(f"{sid} never ran")


async def _one(url: str, index: int, latencies: list[float], errors: list[str]) -> None:
    client = socketio.AsyncClient(reconnection=False)
    replied = asyncio.Event()
    waiting = asyncio.Event()
    expected = f"echo: bench {index}"

    async def on_event(data: dict[str, Any]) -> None:
        if data.get("observation") == "agent_state_changed" and (
            data["extras"].get("agent_state") == "awaiting_user_input"
        ):
            waiting.set()
        if data.get("action") == "message" and data["args"].get("content") == expected:
            replied.set()
        if data.get("error") or data.get("observation") == "error":
            errors.append(f"{index}: {str(data)[:120]}")

    client.on("oh_event", on_event)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=120) as http:
            created = await http.post("/api/conversations", json={})
            created.raise_for_status()
            sid = created.json()["conversation_id"]
            await _wait_running(http, sid)
            await client.connect(
                f"{url}?conversation_id={sid}", transports=["websocket"], wait_timeout=60
            )
            await asyncio.wait_for(waiting.wait(), TIMEOUT)
            sent = time.perf_counter()
            response = await http.post(
                f"/api/conversations/{sid}/message", json={"message": f"bench {index}"}
            )
            response.raise_for_status()
            await asyncio.wait_for(replied.wait(), TIMEOUT)
            latencies.append(time.perf_counter() - sent)
    except Exception as error:
        errors.append(f"{index}: {type(error).__name__}: {error}")
    finally:
        with contextlib.suppress(Exception):
            await client.disconnect()


async def _load(url: str, count: int) -> tuple[float, list[float], list[str]]:
    latencies: list[float] = []
    errors: list[str] = []
    started = time.perf_counter()
    await asyncio.gather(*(_one(url, i, latencies, errors) for i in range(count)))
    return time.perf_counter() - started, latencies, errors


def run_setup(nodes: int, count: int, llm: ScriptedLLMServer) -> str:
    with (
        tempfile.TemporaryDirectory(prefix=f"bench-cluster-{nodes}-") as tmp,
        contextlib.ExitStack() as stack,
    ):
        root = Path(tmp)
        shared = root / "shared"
        (shared / "workspace").mkdir(parents=True)
        config = config_toml(shared, max_concurrent_conversations=count + 10)
        env = {"OPENHANDS_WARMUP": "false", "LOG_LEVEL": "WARNING"}
        if nodes > 1:
            redis = RedisService(root / "redis").start()
            stack.callback(redis.stop)
            env |= {
                "REDIS_HOST": f"127.0.0.1:{redis.port}",
                "CONVERSATION_MANAGER_CLASS": CLUSTERED,
            }
        servers = []
        for n in range(nodes):
            server = ServerProcess(root / f"node{n}", env=env, config=config)
            stack.callback(server.stop)
            servers.append(server.start())
        httpx.post(
            f"{servers[0].url}/api/settings", json=settings_body(llm.base_url)
        ).raise_for_status()
        nginx = NginxService(root / "nginx", [f"127.0.0.1:{s.port}" for s in servers]).start()
        stack.callback(nginx.stop)
        wall, latencies, errors = asyncio.run(_load(nginx.url, count))
        line = (
            f"{nodes} node(s): {count} conversations, wall {wall:.1f}s, errors {len(errors)}, "
            f"reply latency p50 {_pct(latencies, 0.5) * 1000:.0f} ms, "
            f"p99 {_pct(latencies, 0.99) * 1000:.0f} ms ({len(latencies)} replies)"
        )
        for error in errors[:5]:
            line += f"\n    {error}"
        return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=50)
    args = parser.parse_args()
    llm = ScriptedLLMServer([], fallback=scripted_agent).start()
    try:
        for nodes in (1, 2):
            print(run_setup(nodes, args.conversations, llm), flush=True)
    finally:
        llm.stop()


if __name__ == "__main__":
    main()
