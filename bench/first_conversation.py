"""First-use benchmark (issue: hardening): how soon a fresh server is useful.

Every number comes from a real uvicorn process started for it (``ServerProcess``). Prints:
- server start → first `GET /alive` 200 (median of 3 fresh processes);
- the first `GET /api/options/models` of a fresh process, sent 10 s after `/alive` (the
  settings page of a user who opened the app; target ≤ 200 ms), and, for reference, one
  sent right at `/alive` (median of 3 processes each);
- the first chat message: on a fresh server with a warm sandbox image (a conversation on
  another server ran first, so the image exists), `POST /api/conversations` 10 s after
  `/alive` (the user opened the app and typed a task; target ≤ 5 s), and, for reference,
  right at `/alive` and a second conversation on the same server. Then a Socket.IO
  connect; the time from the POST until the agent's first answer (a `message` action from
  the agent) arrives on the socket. CodeActAgent talks to a scripted OpenAI-compatible LLM
  server that answers at once, so this is all server, runtime and agent start-up. Needs
  Docker; skipped without it;
- replay: Socket.IO connect → the first replayed `oh_event`, and → the connect's return
  (every replayed event precedes it), for a conversation of 1,000 and of 10,000 stored
  events (median of 5 connects each, after a first connect that also started the
  conversation's loop on LocalRuntime and a reachable-nowhere LLM).

``OPENHANDS_WARMUP=false`` in the environment turns the server's background warm-up off
(the state before it existed), for a before/after comparison.

- the warm pool (issue 23): `POST /api/conversations` → sandbox ready and → the first
  command observation (p50 of 10, the scripted agent runs one command at once), with a pool
  of 1 (each run waits for the refill first) and with none, for Docker
  (`SANDBOX_WARM_POOL_SIZE`), LocalRuntime (`DESIRED_NUM_WARM_SERVERS`) and RemoteRuntime
  through the runtime API service (`python -m openhands.runtime.remote_api --warm-pool-size`,
  on this host's engine with its own Redis; needs redis-server); the memory of one idle
  pool sandbox. ``--pool`` runs only this part, ``--pool docker`` (or local, remote) one
  runtime.

Run: `python bench/first_conversation.py [--pool]` (part of `make bench`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
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
from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.event import EventSource
from openhands.events.observation import CmdOutputMetadata, CmdOutputObservation
from openhands.events.stream import EventStream
from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.data_models.conversation_metadata import ConversationMetadata
from openhands.storage.local import LocalFileStore
from tests.server.server_process import ServerProcess, config_toml
from tests.support.scripted_llm import ScriptedLLMServer, text, tool_call

TARGETS = {"models_ms": 200.0, "first_message_s": 5.0}
MODELS_AFTER_ALIVE_S = 10.0
RUNS = 3


def _check(ok: bool) -> str:
    return "ok " if ok else "MISS"


def _env() -> dict[str, str]:
    warmup = os.environ.get("OPENHANDS_WARMUP")
    return {"OPENHANDS_WARMUP": warmup} if warmup is not None else {}


# --- start and model list ----------------------------------------------------------------


def _first_models(delay: float) -> tuple[float, float]:
    """(start → /alive s, first model list ms) for one fresh process."""
    with tempfile.TemporaryDirectory() as tmp, ServerProcess(Path(tmp), env=_env()) as server:
        assert server.started_in is not None
        if delay:
            time.sleep(delay)  # the user's pause before opening the settings page
        with httpx.Client(base_url=server.url, timeout=120) as client:
            started = time.perf_counter()
            response = client.get("/api/options/models")
            elapsed = (time.perf_counter() - started) * 1000
            response.raise_for_status()
            assert len(response.json()) > 100
        return server.started_in, elapsed


def start_and_models() -> dict[str, float]:
    later = [_first_models(MODELS_AFTER_ALIVE_S) for _ in range(RUNS)]
    at_alive = [_first_models(0.0) for _ in range(RUNS)]
    return {
        "alive_s": statistics.median(s for s, _ in later + at_alive),
        "models_later_ms": statistics.median(ms for _, ms in later),
        "models_at_alive_ms": statistics.median(ms for _, ms in at_alive),
    }


# --- first chat message ------------------------------------------------------------------


def _docker_available() -> bool:
    try:
        done = subprocess.run(["docker", "info"], capture_output=True, timeout=30)
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _agent(body: dict[str, Any]) -> Any:
    if not body.get("tools"):
        return text("Greeting")  # the conversation's title
    return text("Hello! What should I do?")


async def _first_message(server: ServerProcess, llm_url: str) -> float:
    """POST /api/conversations → the agent's first message on the socket (seconds)."""
    answered = asyncio.Event()
    sock = socketio.AsyncClient(reconnection=False)

    async def on_event(data: dict[str, Any]) -> None:
        if data.get("action") == "message" and data.get("source") == "agent":
            answered.set()

    sock.on("oh_event", on_event)
    async with httpx.AsyncClient(base_url=server.url, timeout=300) as http:
        settings = scripted_llm_settings(llm_url)
        (await http.post("/api/settings", json=settings)).raise_for_status()
        started = time.perf_counter()
        created = await http.post("/api/conversations", json={"initial_user_msg": "Hi"})
        created.raise_for_status()
        sid = created.json()["conversation_id"]
        try:
            # The frontend connects once the conversation runs; connecting at once is the
            # soonest any client can.
            query = urlencode({"conversation_id": sid, "latest_event_id": -1})
            await sock.connect(f"{server.url}?{query}", transports=["websocket"])
            await asyncio.wait_for(answered.wait(), 600)
            elapsed = time.perf_counter() - started
        finally:
            await sock.disconnect()
            await http.post(f"/api/conversations/{sid}/stop")
            subprocess.run(
                ["docker", "rm", "-f", f"openhands-runtime-{sid}"],
                capture_output=True,
                stdin=subprocess.DEVNULL,
            )
    return elapsed


def first_message() -> tuple[float, float, float] | None:
    """(first conversation on a fresh server started right at `/alive`, the same started
    10 s after `/alive` on another fresh server, a second one on that server) in seconds."""
    if not _docker_available():
        return None
    with ScriptedLLMServer([], fallback=_agent) as llm:
        # A conversation on a throwaway server builds the sandbox image if it is missing.
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            with ServerProcess(root, config=config_toml(root, runtime="docker")) as server:
                asyncio.run(_first_message(server, llm.base_url))
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            config = config_toml(root, runtime="docker")
            with ServerProcess(root, config=config, env=_env()) as server:
                at_alive = asyncio.run(_first_message(server, llm.base_url))
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            config = config_toml(root, runtime="docker")
            with ServerProcess(root, config=config, env=_env()) as server:
                time.sleep(MODELS_AFTER_ALIVE_S)  # the user reads the page, types the task
                later = asyncio.run(_first_message(server, llm.base_url))
                second = asyncio.run(_first_message(server, llm.base_url))
    return at_alive, later, second


# --- warm pool (issue 23) ------------------------------------------------------------------

POOL_RUNS = 10


def _command_agent(body: dict[str, Any]) -> Any:
    """Title requests get a title; the first turn runs one command; then the agent stops."""
    if not body.get("tools"):
        return text("Pool run")
    messages = body.get("messages") or []
    if messages and messages[-1].get("role") == "tool":
        return text("done")
    return tool_call("execute_bash", {"command": "echo warm", "security_risk": "LOW"})


async def _pool_run(server: ServerProcess) -> tuple[float, float]:
    """(POST /api/conversations → runtime ready, → first command observation), seconds."""
    async with httpx.AsyncClient(base_url=server.url, timeout=300) as http:
        started = time.perf_counter()
        created = await http.post("/api/conversations", json={"initial_user_msg": "go"})
        created.raise_for_status()
        sid = created.json()["conversation_id"]
        ready = observed = None
        deadline = time.monotonic() + 300
        while observed is None and time.monotonic() < deadline:
            if ready is None:
                info = (await http.get(f"/api/conversations/{sid}")).json()
                if info.get("runtime_status") == "STATUS$READY":
                    ready = time.perf_counter() - started
            events = (await http.get(f"/api/conversations/{sid}/events")).json()["events"]
            if any(e.get("observation") == "run" for e in events):
                observed = time.perf_counter() - started
                ready = ready if ready is not None else observed
            await asyncio.sleep(0.01)  # a 10 ms polling step bounds the error
        if ready is None or observed is None:
            raise TimeoutError("the conversation did not run its command")
        await http.delete(f"/api/conversations/{sid}")
    return ready, observed


POOL_READY = {
    "docker": r"Warm pool: openhands-pool-\w+ ready",
    "local": r"Warm local server ready on port \d+",
    "remote": r"Warm pool: sandbox \w+ ready",
}
# What takes a ready member out of the pool (a claim, or a discard for changed settings).
POOL_TAKEN = {
    "docker": r"Warm pool hit: |Warm pool: discarding ",
    "local": r"claimed the warm server on port ",
    "remote": r"Warm pool hit: sandbox |Warm pool: discarding ",
}


def _wait_pool_member(path: Path, kind: str) -> None:
    """Until the pool holds a ready member (made minus taken, as its log tells)."""
    deadline = time.monotonic() + 300
    while True:
        text = path.read_text(errors="replace")
        if len(re.findall(POOL_READY[kind], text)) > len(re.findall(POOL_TAKEN[kind], text)):
            return
        if time.monotonic() > deadline:
            tail = "\n".join(text.splitlines()[-60:])
            raise TimeoutError(f"the {kind} warm pool did not fill:\n{tail}")
        time.sleep(0.1)


def _wait_log(path: Path, pattern: str, count: int) -> None:
    deadline = time.monotonic() + 300
    ready = re.compile(pattern)
    while len(ready.findall(path.read_text(errors="replace"))) < count:
        if time.monotonic() > deadline:
            tail = "\n".join(path.read_text(errors="replace").splitlines()[-60:])
            raise TimeoutError(f"the warm pool did not fill ({pattern}):\n{tail}")
        time.sleep(0.1)


def _wait_pool_ready(server: ServerProcess, count: int) -> None:
    _wait_log(server.log_path, POOL_READY["docker"], count)


class _RuntimeApi:
    """The cluster's runtime API service (``python -m openhands.runtime.remote_api``) on
    this host's engine, with a Redis of its own; ``pool`` warm sandboxes per engine."""

    def __init__(self, root: Path, pool: int) -> None:
        from tests.support.runtime_api import ServiceProcess
        from tests.support.services import RedisService, free_port

        self.root, self.pool = root, pool
        self.redis = RedisService(root / "redis")
        self.port = free_port()
        self.api_key = secrets.token_urlsafe(24)
        self.namespace = f"bench-{secrets.token_hex(4)}"
        self._service = ServiceProcess
        self.log = root / "service.log"
        self.process: Any = None

    def __enter__(self) -> _RuntimeApi:
        key_file = self.root / "api-key"
        key_file.write_text(self.api_key)
        key_file.chmod(0o600)
        engine = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
        self.redis.start()
        argv = [
            "--port", str(self.port), "--engines", engine, "--redis", self.redis.url,
            "--api-key-file", str(key_file), "--namespace", self.namespace,
            "--warm-pool-size", str(self.pool),
        ]  # fmt: skip
        self.process = self._service(self.root, argv, self.port, self.api_key)
        self.process.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.kill()
        ids = subprocess.run(
            ["docker", "ps", "-aq", "--filter", f"label=openhands.runtime-api.namespace={self.namespace}"],
            capture_output=True, text=True, stdin=subprocess.DEVNULL,
        ).stdout.split()  # fmt: skip
        if ids:
            subprocess.run(["docker", "rm", "-f", *ids], capture_output=True)
        self.redis.stop()

    def config(self, image: str) -> str:
        return f"""
[sandbox]
remote_runtime_api_url = "http://127.0.0.1:{self.port}"
api_key = "{self.api_key}"
runtime_container_image = "{image}"
"""


def _setup_of(
    kind: str, size: int, root: Path, stack: contextlib.ExitStack
) -> tuple[str, dict[str, str], Path]:
    """(config.toml, environment, pool log) of a server on ``kind`` with a pool of ``size``."""
    env = {**_env(), "SANDBOX_WARM_POOL_SIZE": str(size)}
    config = config_toml(root, runtime=kind)
    if kind == "local":
        env["DESIRED_NUM_WARM_SERVERS"] = str(size)
        env["INITIAL_NUM_WARM_SERVERS"] = str(size)
        return config, env, root / "server.log"
    if kind == "remote":
        from openhands.runtime.builder.base_image import DEFAULT_BASE_IMAGE
        from openhands.runtime.builder.docker import DockerRuntimeBuilder
        from openhands.runtime.utils.runtime_build import build_runtime_image

        image = build_runtime_image(
            DEFAULT_BASE_IMAGE, DockerRuntimeBuilder(), enable_browser=False
        )
        service = stack.enter_context(_RuntimeApi(root / "runtime-api", size))
        return config + service.config(image), env, service.log
    return config, env, root / "server.log"


POOL_KINDS = (("Docker", "docker"), ("Local", "local"), ("Remote", "remote"))


def pool_table(
    kinds: tuple[tuple[str, str], ...] = POOL_KINDS,
) -> dict[str, tuple[float, float]] | None:
    """p50 (ready s, first observation s) per runtime with a warm pool of 1 and with none."""
    if not _docker_available():
        return None
    results: dict[str, tuple[float, float]] = {}
    with ScriptedLLMServer([], fallback=_command_agent) as llm:
        for name, kind in kinds:
            for size in (1, 0):
                label = f"{name}, pool {size}" if size else f"{name}, no pool"
                with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
                    root = Path(tmp)
                    (root / "runtime-api").mkdir()
                    config, env, pool_log = _setup_of(kind, size, root, stack)
                    server = stack.enter_context(ServerProcess(root, config=config, env=env))
                    with httpx.Client(base_url=server.url, timeout=60) as client:
                        settings = scripted_llm_settings(llm.base_url)
                        client.post("/api/settings", json=settings).raise_for_status()
                    # Untimed: builds the image if missing; teaches the runtime API its template.
                    asyncio.run(_pool_run(server))
                    runs = []
                    for _ in range(POOL_RUNS):
                        if size:
                            # Each run claims a ready sandbox: wait for the refill first.
                            _wait_pool_member(pool_log, kind)
                        runs.append(asyncio.run(_pool_run(server)))
                    print(f"    {label:16s} runs: {[round(r[0] * 1000) for r in runs]} ms to ready")
                results[label] = (
                    statistics.median(r[0] for r in runs),
                    statistics.median(r[1] for r in runs),
                )
    return results


def idle_pool_memory_mib() -> float | None:
    """Memory of one idle warm-pool sandbox (docker stats), MiB."""
    if not _docker_available():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = config_toml(root, runtime="docker")
        env = {**_env(), "SANDBOX_WARM_POOL_SIZE": "1"}
        with ServerProcess(root, config=config, env=env) as server:
            _wait_pool_ready(server, 1)
            time.sleep(5)  # let the idle sandbox settle before it is measured (not a sync)
            names = subprocess.run(
                ["docker", "ps", "--filter", "name=openhands-pool-", "--format", "{{.Names}}"],
                capture_output=True, text=True, check=True,
            ).stdout.split()  # fmt: skip
            usage = subprocess.run(
                ["docker", "stats", "--no-stream", "--format", "{{.MemUsage}}", *names],
                capture_output=True, text=True, check=True,
            ).stdout.split("/")[0].strip()  # fmt: skip
    value = float(usage.rstrip("GiMBk"))
    return value * 1024 if usage.endswith("GiB") else value


# --- replay ------------------------------------------------------------------------------


def _write_events(store_root: Path, sid: str, count: int) -> None:
    stream = EventStream(sid, LocalFileStore(str(store_root)))
    try:
        for index in range(count):
            if index % 3 == 0:
                stream.add_event(
                    MessageAction(f"message {index} " + "lorem " * 40), EventSource.USER
                )
            elif index % 3 == 1:
                stream.add_event(CmdRunAction(f"echo {index}"), EventSource.AGENT)
            else:
                observation = CmdOutputObservation(
                    f"{index}\n" + "output line\n" * 20,
                    command=f"echo {index}",
                    metadata=CmdOutputMetadata(exit_code=0),
                )
                stream.add_event(observation, EventSource.ENVIRONMENT)
    finally:
        stream.close()


async def _timed_replay(url: str, sid: str, count: int) -> tuple[float, float]:
    """(connect → first replayed event ms, connect → connect returned ms)."""
    client = socketio.AsyncClient(reconnection=False)
    first: float | None = None
    received = 0
    started = time.perf_counter()

    async def on_event(data: dict[str, Any]) -> None:
        nonlocal first, received
        if first is None:
            first = time.perf_counter() - started
        received += 1

    client.on("oh_event", on_event)
    query = urlencode({"conversation_id": sid, "latest_event_id": -1})
    started = time.perf_counter()
    await client.connect(f"{url}?{query}", transports=["websocket"], wait_timeout=60)
    done = time.perf_counter() - started
    await client.disconnect()
    if first is None or received < count:
        raise RuntimeError(f"replay incomplete: {received} of {count} events")
    return first * 1000, done * 1000


def replay(count: int, runs: int = 5) -> tuple[float, float]:
    sid = f"{count:032x}"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = FileConversationStore(LocalFileStore(str(root / "store")))
        asyncio.run(store.save_metadata(ConversationMetadata(conversation_id=sid)))
        _write_events(root / "store", sid, count)
        with ServerProcess(root, env=_env()) as server:
            with httpx.Client(base_url=server.url, timeout=120) as client:
                settings = {
                    "llm_model": "openai/test-model",
                    "llm_base_url": "http://127.0.0.1:9/v1",
                    "llm_api_key": "bench",
                }
                client.post("/api/settings", json=settings).raise_for_status()
                asyncio.run(_timed_replay(server.url, sid, count))  # starts the loop
                deadline = time.monotonic() + 120
                while client.get(f"/api/conversations/{sid}").json()["status"] != "RUNNING":
                    if time.monotonic() > deadline:
                        raise TimeoutError("the conversation did not start")
                    time.sleep(0.2)
            timings = [asyncio.run(_timed_replay(server.url, sid, count)) for _ in range(runs)]
    return statistics.median(t[0] for t in timings), statistics.median(t[1] for t in timings)


def main() -> None:
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"OpenHands first-use benchmark ({os.cpu_count()} CPUs, load average {load},"
        f" warm-up {'off' if _env().get('OPENHANDS_WARMUP', 'true') == 'false' else 'on'})"
    )
    numbers = start_and_models()
    print(f"  server start → /alive 200            {numbers['alive_s']:7.2f} s  (median)")
    ok = numbers["models_later_ms"] <= TARGETS["models_ms"]
    print(
        f"  first /api/options/models at /alive + {MODELS_AFTER_ALIVE_S:.0f} s"
        f" {numbers['models_later_ms']:7.1f} ms (target ≤ {TARGETS['models_ms']:.0f} ms) {_check(ok)}"
    )
    print(f"  first /api/options/models at /alive  {numbers['models_at_alive_ms']:7.1f} ms")

    for count in (1000, 10000):
        to_first, to_connect = replay(count)
        print(
            f"  replay of {count:6,d} events: connect → first event {to_first:7.1f} ms,"
            f" → connected with all {to_connect:7.1f} ms (median of 5)"
        )

    message = first_message()
    if message is None:
        print("  first chat message: skipped (no Docker engine)")
    else:
        at_alive, later, second = message
        ok = later <= TARGETS["first_message_s"]
        print(
            f"  first chat message, fresh server, warm image, started at /alive +"
            f" {MODELS_AFTER_ALIVE_S:.0f} s: {later:6.2f} s (target ≤"
            f" {TARGETS['first_message_s']:.0f} s) {_check(ok)}"
        )
        print(
            f"    started right at /alive: {at_alive:6.2f} s; the next conversation on a"
            f" server: {second:6.2f} s"
        )
    table = pool_table()
    if table is None:
        print("  warm pool: skipped (no Docker engine)")
    else:
        print(f"  POST /api/conversations → (p50 of {POOL_RUNS}, instant scripted LLM):")
        for label, (ready, observed) in table.items():
            print(
                f"    {label:16s} ready {ready * 1000:7.0f} ms,"
                f" first command observation {observed * 1000:7.0f} ms"
            )
        memory = idle_pool_memory_mib()
        if memory is not None:
            print(f"  one idle warm-pool sandbox: {memory:.0f} MiB (docker stats)")
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"  load average at the end: {load} (other work on the machine skews the numbers)")


if __name__ == "__main__":
    if "--pool" in sys.argv[1:]:
        wanted = set(sys.argv[sys.argv.index("--pool") + 1 :])
        kinds = tuple(k for k in POOL_KINDS if not wanted or k[1] in wanted)
        table = pool_table(kinds) or {}
        for label, (ready, observed) in table.items():
            print(
                f"{label:16s} ready {ready * 1000:7.0f} ms, first observation {observed * 1000:7.0f} ms"
            )
        print(f"idle pool sandbox: {idle_pool_memory_mib()} MiB")
    else:
        main()
