"""Web server workload: a real ``uvicorn openhands.server.listen:app`` process of this interpreter.

Metrics (one JSON line):
- cold start: process spawn -> first ``GET /alive`` 200; idle RSS of the server right after
  (VmRSS, 1 s after start, no API request served yet);
- ``GET /api/options/models``: the first request of the fresh process (with an empty
  ``XDG_CACHE_HOME``, so no model list cached by an earlier run), then the median and p99
  of 100 sequential requests;
- ``GET /api/conversations?limit=20`` (the UI's first page): median of 100 requests with 200
  and of 30 with 2,000 stored conversations (written with the conversation store beforehand);
- Socket.IO replay of a stored 1,000-event conversation: connect -> the first replayed
  ``oh_event`` and -> the last one, median of 5 connects.

Both servers limit requests per client address (10/s, then delays and 429s). Instead of
turning that off (which only ours can), the client spreads its requests over 100 keep-alive
connections from different loopback source addresses, so no address comes near the limit
and the limiter's own cost stays in the figures. Settings with an LLM that is never called
are stored before the replay, so a connect is accepted (ours checks them before replaying);
the first connect also starts the conversation's agent loop on the CLI runtime.
"""

from __future__ import annotations

import asyncio
import http.client
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import _workload as w

w.quiet_environment()

import socketio  # noqa: E402

from openhands.events.action import CmdRunAction, MessageAction  # noqa: E402
from openhands.events.event import Event, EventSource  # noqa: E402
from openhands.events.observation import CmdOutputMetadata, CmdOutputObservation  # noqa: E402
from openhands.events.stream import EventStream  # noqa: E402
from openhands.storage.conversation.file_conversation_store import (  # noqa: E402
    FileConversationStore,
)
from openhands.storage.data_models.conversation_metadata import (  # noqa: E402
    ConversationMetadata,
    ConversationTrigger,
)
from openhands.storage.local import LocalFileStore  # noqa: E402

REQUESTS = 100
WARMUP = 10
CONNECTIONS = 100
REPLAY_EVENTS = 1_000
REPLAY_CONNECTS = 5
REPLAY_SID = "r" * 32
SETTINGS = {
    "llm_model": "openai/bench-model",
    "llm_base_url": "http://127.0.0.1:9/v1",
    "llm_api_key": "bench",
}
CONFIG = """
[core]
runtime = "cli"
file_store = "local"
file_store_path = "{root}/store"
workspace_base = "{root}/workspace"
jwt_secret = "compare-bench-jwt-secret-of-at-least-32-bytes"
enable_browser = false
"""


class Server:
    """One uvicorn process in its own directory (its config.toml, store and log)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = w.free_port()
        (root / "workspace").mkdir(parents=True, exist_ok=True)
        (root / "config.toml").write_text(CONFIG.format(root=root))
        self.process: subprocess.Popen[bytes] | None = None
        self.started_in = 0.0

    def start(self) -> Server:
        env = dict(os.environ, SERVE_FRONTEND="false", LOG_LEVEL="WARNING", port=str(self.port))
        # A fresh install: no model list cached by an earlier run (issue 23).
        env["XDG_CACHE_HOME"] = str(self.root / "cache")
        command = [sys.executable, "-m", "uvicorn", "openhands.server.listen:app"]
        command += ["--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"]
        command += ["--timeout-keep-alive", "120"]
        with open(self.root / "server.log", "ab") as log:
            started = time.perf_counter()
            self.process = subprocess.Popen(
                command,
                cwd=self.root,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 120
        while not self._alive():
            if self.process.poll() is not None or time.monotonic() > deadline:
                log_tail = (self.root / "server.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"server did not start:\n{log_tail}")
            time.sleep(0.02)
        self.started_in = time.perf_counter() - started
        return self

    def _alive(self) -> bool:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
        try:
            connection.request("GET", "/alive")
            return connection.getresponse().status == 200
        except OSError:
            return False
        finally:
            connection.close()

    def stop(self) -> None:
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        except ProcessLookupError:
            pass

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Client:
    """Keep-alive connections from many loopback addresses, used in turn."""

    def __init__(self, port: int) -> None:
        self.connections = [
            http.client.HTTPConnection(
                "127.0.0.1",
                port,
                timeout=60,
                source_address=(f"127.0.{1 + i // 250}.{1 + i % 250}", 0),
            )
            for i in range(CONNECTIONS)
        ]
        self._next = itertools.cycle(self.connections)

    def post_json(self, path: str, body: dict[str, Any]) -> None:
        connection = next(self._next)
        headers = {"Content-Type": "application/json"}
        connection.request("POST", path, body=json.dumps(body), headers=headers)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"POST {path}: HTTP {response.status}")

    def get(self, path: str) -> float:
        connection = next(self._next)
        started = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        elapsed = time.perf_counter() - started
        if response.status != 200:
            raise RuntimeError(f"GET {path}: HTTP {response.status}")
        return elapsed

    def median_ms(self, path: str, requests: int = REQUESTS) -> float:
        for _ in range(WARMUP):
            self.get(path)
        return w.median_ms([self.get(path) for _ in range(requests)])

    def open_all(self) -> None:
        for _ in self.connections:
            self.get("/alive")

    def close(self) -> None:
        for connection in self.connections:
            connection.close()


async def _write_conversations(store: Path, count: int) -> None:
    conversations = FileConversationStore(LocalFileStore(str(store)))
    now = datetime.now(UTC)
    for index in range(count):
        await conversations.save_metadata(
            ConversationMetadata(
                conversation_id=REPLAY_SID if index == 0 else f"{index:032x}",
                selected_repository="bench/repo" if index % 3 == 1 else None,
                title=f"Bench conversation {index}",
                trigger=ConversationTrigger.GUI,
                created_at=now - timedelta(seconds=index * 37),
                last_updated_at=now - timedelta(seconds=index * 11),
            )
        )


def _write_events(store: Path) -> None:
    stream = EventStream(REPLAY_SID, LocalFileStore(str(store)))
    for index in range(REPLAY_EVENTS):
        kind = index % 3
        if kind == 0:
            event: Event = MessageAction(f"message {index} " + "lorem ipsum " * 20)
            source = EventSource.USER
        elif kind == 1:
            event = CmdRunAction(f"echo {index}")
            source = EventSource.AGENT
        else:
            event = CmdOutputObservation(
                f"{index}\n" + "output line\n" * 20,
                command=f"echo {index}",
                metadata=CmdOutputMetadata(exit_code=0),
            )
            source = EventSource.ENVIRONMENT
        stream.add_event(event, source)
    stream.close()


async def _replay_once(url: str) -> tuple[float, float]:
    client = socketio.AsyncClient(reconnection=False)
    times: dict[str, float] = {}
    done = asyncio.Event()

    async def on_event(data: dict[str, Any]) -> None:
        now = time.perf_counter()
        times.setdefault("first", now)
        if data.get("id") == REPLAY_EVENTS - 1:
            times["last"] = now
            done.set()

    client.on("oh_event", on_event)
    query = urlencode({"conversation_id": REPLAY_SID, "latest_event_id": -1})
    started = time.perf_counter()
    try:
        await client.connect(f"{url}?{query}", transports=["websocket"], wait_timeout=30)
        await asyncio.wait_for(done.wait(), 30)
    finally:
        await client.disconnect()
    return (times["first"] - started) * 1000, (times["last"] - started) * 1000


def replay(port: int) -> tuple[float, float]:
    runs = [asyncio.run(_replay_once(f"http://127.0.0.1:{port}")) for _ in range(REPLAY_CONNECTS)]
    return (
        w.percentile([first for first, _ in runs], 0.5),
        w.percentile([last for _, last in runs], 0.5),
    )


def main() -> None:
    base = w.workdir()
    small, large = base / "small", base / "large"
    asyncio.run(_write_conversations(small / "store", 200))
    _write_events(small / "store")
    asyncio.run(_write_conversations(large / "store", 2_000))
    metrics: dict[str, float] = {}

    with Server(small) as server:
        metrics["cold_start_s"] = server.started_in
        time.sleep(1.0)
        assert server.process is not None
        metrics["idle_rss_mb"] = w.rss_mb(server.process.pid)
        client = Client(server.port)
        metrics["models_first_ms"] = client.get("/api/options/models") * 1000
        client.open_all()
        for _ in range(WARMUP):
            client.get("/api/options/models")
        steady = [client.get("/api/options/models") for _ in range(REQUESTS)]
        metrics["models_p50_ms"] = w.percentile(steady, 0.5) * 1000
        metrics["models_p99_ms"] = w.percentile(steady, 0.99) * 1000
        metrics["list_200_p50_ms"] = client.median_ms("/api/conversations?limit=20")
        client.post_json("/api/settings", SETTINGS)
        client.close()
        first, last = replay(server.port)
        metrics["replay_1k_first_event_ms"] = first
        metrics["replay_1k_last_event_ms"] = last

    with Server(large) as server:
        client = Client(server.port)
        client.open_all()
        metrics["list_2000_p50_ms"] = client.median_ms("/api/conversations?limit=20", 30)
        client.close()
    w.emit(metrics)


if __name__ == "__main__":
    main()
