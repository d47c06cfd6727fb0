"""Echo round trip of a running conversation while the warm pool refills (issue 23).

A real server on Docker with a warm pool of 2 (``SANDBOX_WARM_POOL_SIZE=2``) and a scripted
OpenAI-compatible LLM. Conversation A runs; a Socket.IO client sends it ``echo`` commands as
``oh_user_action`` run actions, one at a time, and times each from the emit to the command's
observation arriving on the socket. Two phases:

- idle: the pool is full and nothing else happens;
- claim: conversation B starts and claims a pool sandbox (B's own start-up work runs in the
  same server process), until B's sandbox is ready;
- refill: from then until the pool log says the replacement member the pool boots in the
  background is ready (at least ``MIN_REFILL_ECHOES`` echoes).

- bare container starts (a reference, not the product): ``docker run -d --network none
  IMAGE sleep`` from this process, outside the server, ``BARE_STARTS`` times while A keeps
  echoing. It shows what any container start costs a running conversation on this engine,
  with no pool code involved.

Prints p50 and p99 of every phase and the refill/idle ratio (the issue asks the refill p99
to stay within 20 % of the idle one). Figures only: nothing here is asserted.

Run: ``python bench/pool_refill.py`` (needs Docker; builds the sandbox image if missing).
"""

from __future__ import annotations

import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx
import socketio

from bench._settings import scripted_llm_settings
from tests.server.server_process import ServerProcess, config_toml
from tests.support.scripted_llm import ScriptedLLMServer, text

POOL_SIZE = 2
IDLE_ECHOES = 60
MIN_REFILL_ECHOES = 20
BARE_STARTS = 3
POOL_READY = re.compile(r"Warm pool: openhands-pool-\w+ ready")
POOL_TAKEN = re.compile(r"Warm pool hit: |Warm pool: discarding ")


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _pool_members(log: Path) -> int:
    """Ready members the pool holds now, as its log tells (made minus taken)."""
    content = log.read_text(errors="replace")
    return len(POOL_READY.findall(content)) - len(POOL_TAKEN.findall(content))


async def _wait(condition: Any, what: str, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def _start_conversation(http: httpx.AsyncClient) -> str:
    created = await http.post("/api/conversations", json={})
    created.raise_for_status()
    sid = str(created.json()["conversation_id"])
    deadline = time.monotonic() + 300
    while True:
        info = (await http.get(f"/api/conversations/{sid}")).json()
        if info.get("runtime_status") == "STATUS$READY":
            return sid
        if time.monotonic() > deadline:
            raise TimeoutError(f"conversation {sid} did not get a ready sandbox")
        await asyncio.sleep(0.05)


class EchoClient:
    """One Socket.IO connection to a conversation, timing run actions to their output."""

    def __init__(self, url: str, sid: str) -> None:
        self.url, self.sid = url, sid
        self.client = socketio.AsyncClient(reconnection=False)
        self.waiting: dict[str, asyncio.Future[float]] = {}
        self.client.on("oh_event", self._on_event)

    async def _on_event(self, data: dict[str, Any]) -> None:
        if data.get("observation") != "run":
            return
        for marker, future in list(self.waiting.items()):
            if marker in str(data.get("content", "")) and not future.done():
                future.set_result(time.perf_counter())

    async def connect(self) -> None:
        query = urlencode({"conversation_id": self.sid, "latest_event_id": -1})
        await self.client.connect(f"{self.url}?{query}", transports=["websocket"], wait_timeout=60)

    async def echo(self, index: int) -> float:
        """Seconds from the emit to the observation of ``echo <marker>``."""
        marker = f"echo-mark-{index}-{time.monotonic_ns()}"
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[marker] = future
        started = time.perf_counter()
        await self.client.emit(
            "oh_user_action", {"action": "run", "args": {"command": f"echo {marker}"}}
        )
        try:
            return await asyncio.wait_for(future, 60) - started
        finally:
            del self.waiting[marker]

    async def close(self) -> None:
        await self.client.disconnect()


def _bare_container_start(image: str) -> None:
    """Create and start a container that only sleeps, then remove it."""
    started = subprocess.run(
        ["docker", "run", "-d", "--network", "none", image, "sleep", "30"],
        capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    subprocess.run(
        ["docker", "rm", "-f", started.stdout.strip()],
        capture_output=True, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _sandbox_image(sid: str) -> str:
    """The image of conversation ``sid``'s sandbox container."""
    listed = subprocess.run(
        ["docker", "ps", "--filter", f"name={sid}", "--format", "{{.Image}}"],
        capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return listed.stdout.split()[0]


async def _echo_during(echo: EchoClient, work: Any, index: int) -> list[float]:
    """Echo round trips while ``work`` (a blocking callable) runs in a thread."""
    task = asyncio.create_task(asyncio.to_thread(work))
    timings: list[float] = []
    while not task.done():
        timings.append(await echo.echo(index + len(timings)))
    await task
    return timings


Phases = dict[str, list[float]]


async def _measure(server: ServerProcess) -> Phases:
    log = server.log_path
    async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
        await _wait(lambda: _pool_members(log) >= POOL_SIZE, "the pool to fill")
        sid = await _start_conversation(http)
        await _wait(lambda: _pool_members(log) >= POOL_SIZE, "the pool to refill after A")
        echo = EchoClient(server.url, sid)
        await echo.connect()
        try:
            for index in range(5):  # untimed: the first commands warm the shell
                await echo.echo(index)
            idle = [await echo.echo(100 + i) for i in range(IDLE_ECHOES)]
            # B claims a member; the pool boots a replacement while A keeps echoing.
            claim = asyncio.create_task(_start_conversation(http))
            during_claim: list[float] = []
            index = 1000
            while not claim.done():
                during_claim.append(await echo.echo(index))
                index += 1
            await claim
            refill: list[float] = []
            while _pool_members(log) < POOL_SIZE or len(refill) < MIN_REFILL_ECHOES:
                refill.append(await echo.echo(index))
                index += 1
            image = _sandbox_image(sid)
            bare: list[float] = []
            for _ in range(BARE_STARTS):
                timings = await _echo_during(echo, lambda: _bare_container_start(image), index)
                bare += timings
                index += len(timings)
        finally:
            await echo.close()
        # Their sandboxes go with them (a stopped conversation's container is kept otherwise).
        for conversation in (sid, claim.result() if claim.done() else None):
            if conversation is not None:
                await http.delete(f"/api/conversations/{conversation}")
    return {
        "pool full, idle": idle,
        "B claiming": during_claim,
        "pool refilling": refill,
        "bare docker run": bare,
    }


def main() -> None:
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"Echo round trip while the warm pool refills ({os.cpu_count()} CPUs, load {load})")
    with (
        ScriptedLLMServer([], fallback=lambda _body: text("ok")) as llm,
        tempfile.TemporaryDirectory() as tmp,
    ):
        root = Path(tmp)
        env = {"SANDBOX_WARM_POOL_SIZE": str(POOL_SIZE)}
        with ServerProcess(root, config=config_toml(root, runtime="docker"), env=env) as server:
            with httpx.Client(base_url=server.url, timeout=60) as client:
                settings = scripted_llm_settings(llm.base_url)
                client.post("/api/settings", json=settings).raise_for_status()
            phases = asyncio.run(_measure(server))
    for label, values in phases.items():
        print(
            f"  {label:16s} n={len(values):3d}  p50 {statistics.median(values) * 1000:7.1f} ms"
            f"  p99 {_percentile(values, 0.99) * 1000:7.1f} ms"
        )
    idle = _percentile(phases["pool full, idle"], 0.99)
    ratio = _percentile(phases["pool refilling"], 0.99) / idle
    print(f"  refill p99 / idle p99: {ratio:.2f} (the issue's bound: ≤ 1.20)")
    bare = _percentile(phases["bare docker run"], 0.99) / idle
    print(f"  bare docker run p99 / idle p99: {bare:.2f} (no pool code: the engine's own cost)")
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"  load average at the end: {load}")


if __name__ == "__main__":
    main()
