"""Web server benchmark (issue: server). Every number comes from a real uvicorn process.

Prints:
- cold start: process spawn → first `GET /alive` 200 (median of 3 fresh processes), and the
  idle RSS of the server process right after start (VmRSS; no request served yet);
- p50/p99 of `GET /api/options/models` and `GET /api/conversations` (the frontend's first
  page, limit 20) with 0, 200 and 2,000 stored conversations, whose metadata is written
  with the conversation store into the file store before the server starts. 300 sequential
  requests per endpoint over one keep-alive connection, after 20 warm-up requests. Rate
  limiting is off (RATE_LIMIT_ENABLED=false): it would delay a benchmark client on purpose;
- replay: Socket.IO connect → the last replayed `oh_event` of a conversation holding 1,000
  stored events (written directly with an EventStream on the server's file store),
  median and max of 5 connects;
- load: 20 conversations created at once, each running a 20-step scripted task
  (19 `echo` commands, then `finish`) with CodeActAgent on LocalRuntime against a scripted
  OpenAI-compatible LLM server. Wall time from the first POST until every socket has seen
  `finished`; errors (failed requests, error payloads, error observations, unfinished
  conversations); peak RSS sampled every 0.2 s, of the server process alone and of the
  server with all its descendant processes (the 20 action-execution servers and their
  shells).

Run: `python bench/server.py` (part of `make bench`).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import httpx
import psutil
import socketio

from openhands.core.schema import AgentState
from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.event import EventSource
from openhands.events.observation import (
    AgentStateChangedObservation,
    CmdOutputMetadata,
    CmdOutputObservation,
)
from openhands.events.stream import EventStream
from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.data_models.conversation_metadata import (
    ConversationMetadata,
    ConversationTrigger,
)
from openhands.storage.local import LocalFileStore
from tests.server.server_process import ServerProcess, config_toml
from tests.support.scripted_llm import ScriptedLLMServer, text, tool_call

TARGETS = {
    "cold_start_s": 2.0,
    "idle_rss_mb": 180.0,
    "list_p99_ms_2000": 20.0,
    "replay_ms": 100.0,
}
REPLAY_EVENTS = 1000
LOAD_CONVERSATIONS = 20
LOAD_STEPS = 20


def _mb(n_bytes: float) -> float:
    return n_bytes / (1024 * 1024)


def _rss(pid: int) -> int:
    return int(psutil.Process(pid).memory_info().rss)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def _check(ok: bool) -> str:
    return "ok " if ok else "MISS"


# --- cold start --------------------------------------------------------------------------


def cold_start(runs: int = 3) -> tuple[float, float]:
    times, rss = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            server = ServerProcess(Path(tmp))
            server.start()
            try:
                assert server.started_in is not None
                times.append(server.started_in)
                time.sleep(1.0)  # let start-up settle; still no request but /alive served
                rss.append(_mb(_rss(server.pid)))
            finally:
                server.stop()
    return statistics.median(times), statistics.median(rss)


# --- request latency ---------------------------------------------------------------------


async def _write_conversations(store_root: Path, count: int) -> None:
    store = FileConversationStore(LocalFileStore(str(store_root)))
    now = datetime.now(UTC)
    for index in range(count):
        await store.save_metadata(
            ConversationMetadata(
                conversation_id=f"{index:032x}",
                title=f"Bench conversation {index}",
                selected_repository="bench/repo" if index % 3 == 0 else None,
                trigger=ConversationTrigger.GUI,
                created_at=now - timedelta(seconds=index * 37),
                last_updated_at=now - timedelta(seconds=index * 11),
            )
        )


def _latencies(client: httpx.Client, path: str, n: int = 300) -> list[float]:
    for _ in range(20):
        client.get(path).raise_for_status()
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        response = client.get(path)
        samples.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
    return samples


def request_latency(count: int) -> dict[str, tuple[float, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        asyncio.run(_write_conversations(root / "store", count))
        with ServerProcess(root) as server, httpx.Client(base_url=server.url, timeout=60) as c:
            results = {}
            for path in ("/api/options/models", "/api/conversations?limit=20"):
                samples = _latencies(c, path)
                results[path] = (_pct(samples, 0.5), _pct(samples, 0.99))
            page = c.get("/api/conversations?limit=20").json()
            assert len(page["results"]) == min(count, 20), page
            return results


# --- replay ------------------------------------------------------------------------------


def _write_events(store_root: Path, sid: str, count: int) -> int:
    """``count`` events of a typical run; returns how many payloads a full replay sends."""
    stream = EventStream(sid, LocalFileStore(str(store_root)))
    sent = 0
    state_seen = False
    try:
        for index in range(count):
            kind = index % 4
            if kind == 0:
                event: Any = MessageAction(f"message {index} " + "lorem ipsum " * 20)
                source = EventSource.USER
            elif kind == 1:
                event = CmdRunAction(f"echo {index}")
                source = EventSource.AGENT
            elif kind == 2:
                event = CmdOutputObservation(
                    f"{index}\n" + "output line\n" * 20,
                    command=f"echo {index}",
                    metadata=CmdOutputMetadata(exit_code=0),
                )
                source = EventSource.ENVIRONMENT
            else:
                event = AgentStateChangedObservation("", AgentState.RUNNING.value)
                source = EventSource.ENVIRONMENT
            stream.add_event(event, source)
            if kind == 3:
                state_seen = True
            else:
                sent += 1
    finally:
        stream.close()
    return sent + (1 if state_seen else 0)


async def _timed_replay(url: str, sid: str, stored: int) -> float:
    """Connect → connect() returned with every replayed event (they precede the ack)."""
    client = socketio.AsyncClient(reconnection=False)
    replayed = 0

    async def on_event(data: dict[str, Any]) -> None:
        nonlocal replayed
        if isinstance(data.get("id"), int) and data["id"] < REPLAY_EVENTS:
            replayed += 1

    client.on("oh_event", on_event)
    query = urlencode({"conversation_id": sid, "latest_event_id": -1})
    started = time.perf_counter()
    await client.connect(f"{url}?{query}", transports=["websocket"], wait_timeout=30)
    elapsed = time.perf_counter() - started
    await client.disconnect()
    if replayed < stored:
        raise RuntimeError(f"replay incomplete at connect: {replayed} of {stored} events")
    return elapsed * 1000


def replay(runs: int = 5) -> tuple[float, float, float]:
    """(first connect, which also starts the agent loop; median and max of warm connects)."""
    sid = "b" * 32
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = FileConversationStore(LocalFileStore(str(root / "store")))
        asyncio.run(store.save_metadata(ConversationMetadata(conversation_id=sid)))
        expected = _write_events(root / "store", sid, REPLAY_EVENTS)
        # Every stored event but the agent-state ones is replayed (a warm connect's last
        # agent state is the running loop's own, newer one).
        stored = expected - 1
        with ServerProcess(root) as server, httpx.Client(base_url=server.url, timeout=120) as c:
            c.post(
                "/api/settings",
                json={
                    "llm_model": "openai/test-model",
                    "llm_base_url": "http://127.0.0.1:9/v1",
                    "llm_api_key": "bench",
                },
            ).raise_for_status()
            first = asyncio.run(_timed_replay(server.url, sid, stored))
            _wait_running(c, sid)
            timings = [asyncio.run(_timed_replay(server.url, sid, stored)) for _ in range(runs)]
            c.post(f"/api/conversations/{sid}/stop")
    return first, statistics.median(timings), max(timings)


def _wait_running(client: httpx.Client, sid: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = client.get(f"/api/conversations/{sid}").json()
        if info and info["status"] == "RUNNING":
            time.sleep(1.0)  # the agent's own start-up events
            return
        time.sleep(0.2)
    raise TimeoutError(f"{sid} did not reach RUNNING")


# --- concurrent conversations ------------------------------------------------------------


def _step_responder(steps: int) -> Callable[[dict[str, Any]], Any]:
    """One scripted task for every conversation: the reply depends only on the request."""

    def respond(body: dict[str, Any]) -> Any:
        if not body.get("tools"):
            return text("Bench task")  # the title of the conversation
        done = sum(1 for message in body["messages"] if message.get("role") == "tool")
        if done < steps - 1:
            command = f"echo step-{done + 1}"
            return tool_call("execute_bash", {"command": command, "security_risk": "LOW"})
        return tool_call("finish", {"message": "All steps done."})

    return respond


class _PeakRss:
    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.server = 0
        self.tree = 0
        self.processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        root = psutil.Process(self.pid)
        while not self._stop.is_set():
            try:
                own = root.memory_info().rss
                children = root.children(recursive=True)
            except psutil.Error:
                return
            total = own
            for child in children:
                try:
                    total += child.memory_info().rss
                except psutil.Error:
                    pass
            self.server = max(self.server, own)
            self.tree = max(self.tree, total)
            self.processes = max(self.processes, 1 + len(children))
            self._stop.wait(0.2)

    def __enter__(self) -> _PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


async def _run_load(url: str) -> tuple[float, int, list[str]]:
    errors: list[str] = []
    finished = 0
    async with httpx.AsyncClient(base_url=url, timeout=300) as client:

        async def one(index: int) -> None:
            nonlocal finished
            sock = socketio.AsyncClient(reconnection=False)
            done = asyncio.Event()

            async def on_event(data: dict[str, Any]) -> None:
                if data.get("error") or (data.get("status_update") and data["type"] == "error"):
                    errors.append(f"conversation {index}: {data.get('message')}")
                if data.get("observation") == "error":
                    errors.append(f"conversation {index}: error observation {data['content']}")
                if data.get("observation") == "agent_state_changed":
                    state = data["extras"]["agent_state"]
                    if state == "finished":
                        done.set()
                    elif state in ("error", "stopped"):
                        errors.append(f"conversation {index}: agent state {state}")
                        done.set()

            sock.on("oh_event", on_event)
            response = await client.post(
                "/api/conversations", json={"initial_user_msg": f"Run the {LOAD_STEPS} steps."}
            )
            if response.status_code != 200:
                errors.append(f"conversation {index}: POST {response.status_code}")
                return
            sid = response.json()["conversation_id"]
            query = urlencode({"conversation_id": sid, "latest_event_id": -1})
            try:
                await sock.connect(f"{url}?{query}", transports=["websocket"], wait_timeout=60)
                await asyncio.wait_for(done.wait(), 600)
                if not any(e.startswith(f"conversation {index}:") for e in errors):
                    finished += 1
            except Exception as error:  # a timeout or a refused socket is a counted error
                errors.append(f"conversation {index}: {type(error).__name__} {error}")
            finally:
                await sock.disconnect()

        started = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(LOAD_CONVERSATIONS)))
        wall = time.perf_counter() - started
    return wall, finished, errors


def concurrent_load() -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory() as tmp,
        ScriptedLLMServer([], fallback=_step_responder(LOAD_STEPS)) as llm,
    ):
        root = Path(tmp)
        config = config_toml(root, max_concurrent_conversations=LOAD_CONVERSATIONS + 5)
        with ServerProcess(root, config=config) as server:
            with httpx.Client(base_url=server.url, timeout=60) as c:
                c.post(
                    "/api/settings",
                    json={
                        "llm_model": "openai/test-model",
                        "llm_base_url": llm.base_url,
                        "llm_api_key": "bench",
                        "enable_default_condenser": False,
                    },
                ).raise_for_status()
            with _PeakRss(server.pid) as peak:
                wall, finished, errors = asyncio.run(_run_load(server.url))
            requests = len(llm.completion_requests)
    return {
        "wall_s": wall,
        "finished": finished,
        "errors": errors,
        "peak_server_mb": _mb(peak.server),
        "peak_tree_mb": _mb(peak.tree),
        "processes": peak.processes,
        "llm_requests": requests,
    }


# --- report ------------------------------------------------------------------------------


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    print(
        f"OpenHands server benchmark ({os.cpu_count()} CPUs, Python {sys.version.split()[0]},"
        f" load average {_load()})"
    )

    start_s, idle_mb = cold_start()
    print(
        f"  cold start → /alive 200     {start_s:6.2f} s   (target ≤ {TARGETS['cold_start_s']} s)"
        f"  {_check(start_s <= TARGETS['cold_start_s'])}"
    )
    print(
        f"  idle RSS after start        {idle_mb:6.0f} MB  (target ≤ {TARGETS['idle_rss_mb']:.0f} MB)"
        f" {_check(idle_mb <= TARGETS['idle_rss_mb'])}"
    )

    print("  request latency, p50 / p99 (ms), 300 sequential requests each:")
    list_p99_2000 = 0.0
    for count in (0, 200, 2000):
        results = request_latency(count)
        models = results["/api/options/models"]
        listing = results["/api/conversations?limit=20"]
        if count == 2000:
            list_p99_2000 = listing[1]
        print(
            f"    {count:5d} conversations: /api/options/models {models[0]:6.2f} / {models[1]:6.2f}"
            f"   /api/conversations {listing[0]:6.2f} / {listing[1]:6.2f}"
        )
    print(
        f"  list p99 at 2,000           {list_p99_2000:6.2f} ms  (target ≤ "
        f"{TARGETS['list_p99_ms_2000']:.0f} ms)  {_check(list_p99_2000 <= TARGETS['list_p99_ms_2000'])}"
    )

    first, replay_median, replay_max = replay()
    print(
        f"  replay of {REPLAY_EVENTS} events (connect → connected with all replayed events):"
        f" median {replay_median:.1f} ms, max {replay_max:.1f} ms over 5 connects (target ≤"
        f" {TARGETS['replay_ms']:.0f} ms) {_check(replay_median <= TARGETS['replay_ms'])}"
    )
    print(f"    first connect, which also starts the agent loop: {first:.1f} ms")

    load = concurrent_load()
    print(
        f"  {LOAD_CONVERSATIONS} concurrent conversations × {LOAD_STEPS} steps (LocalRuntime):"
        f" wall {load['wall_s']:.1f} s, finished {load['finished']}/{LOAD_CONVERSATIONS},"
        f" errors {len(load['errors'])}  {_check(not load['errors'])}"
    )
    print(
        f"    peak RSS: server process {load['peak_server_mb']:.0f} MB; server + descendants"
        f" {load['peak_tree_mb']:.0f} MB over {load['processes']} processes;"
        f" {load['llm_requests']} LLM requests"
    )
    for error in load["errors"][:10]:
        print(f"    error: {error}")
    print(f"  load average at the end: {_load()} (other work on the machine skews the numbers)")


if __name__ == "__main__":
    main()
