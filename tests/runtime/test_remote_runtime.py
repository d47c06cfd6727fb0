"""RemoteRuntime against a fake Runtime API (remote-runtime.md §4.1, checklist items 1-14).

``FakeRuntimeAPI`` is a real HTTP server on a random loopback port. It records every request,
and ``POST /start`` launches a real action execution server as a host process (the way
LocalRuntime does: this machine's interpreter, a temporary workspace and HOME, the current
user, a random session API key). The ``url`` it hands out points back at itself, at
``/<runtime_id>`` (path mode) or ``/sandbox/<runtime_id>`` (subdomain mode), and it forwards
those requests to the server, so the test sees the client's headers and can answer 404/5xx
in the server's place, or 503 while the runtime is paused, as a real Runtime API's proxy does.
"""

from __future__ import annotations

import asyncio
import base64
import email.parser
import email.policy
import getpass
import io
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from pydantic import SecretStr
from tenacity import wait_none

from openhands.core.config import OpenHandsConfig
from openhands.core.exceptions import (
    AgentRuntimeBuildError,
    AgentRuntimeDisconnectedError,
    AgentRuntimeNotFoundError,
    AgentRuntimeNotReadyError,
    AgentRuntimeUnavailableError,
)
from openhands.events.action import CmdRunAction, FileReadAction, FileWriteAction
from openhands.events.observation import (
    CmdOutputObservation,
    FileReadObservation,
    FileWriteObservation,
)
from openhands.events.stream import EventStream
from openhands.runtime import get_runtime_cls
from openhands.runtime.builder.remote import RemoteRuntimeBuilder
from openhands.runtime.impl.remote import RemoteRuntime
from openhands.runtime.impl.remote import remote_runtime as remote_runtime_module
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.runtime.server.options import tmux_socket_name
from openhands.runtime.utils import request as request_module
from openhands.runtime.utils import runtime_build
from openhands.runtime.utils.request import RequestHTTPError
from openhands.storage.memory import InMemoryFileStore

PROJECT_ROOT = Path(__file__).resolve().parents[2]
API_KEY = "test-runtime-api-key"
START_KEYS = {"image", "command", "working_dir", "environment", "session_id", "resource_factor"}
BUILD_PATHS = {"/registry_prefix", "/image_exists", "/build", "/build_status"}
# Readiness poll, build status poll, build timeout (§5, §7), as the classes define them.
DEFAULT_PERIODS = (
    RemoteRuntime.ready_poll_seconds,
    RemoteRuntimeBuilder.poll_interval,
    RemoteRuntimeBuilder.build_timeout,
)


# --- the fake Runtime API ----------------------------------------------------------------------


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    at: float

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class ActionServer:
    process: subprocess.Popen[bytes]
    port: int
    workspace: str
    home: str
    command: list[str]


@dataclass
class FakeRuntime:
    runtime_id: str
    session_id: str
    session_api_key: str
    status: str = "running"  # running | paused | stopped
    server: ActionServer | None = None
    pod_statuses: list[str] = field(default_factory=list)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _multipart_fields(content_type: str, body: bytes) -> dict[str, list[bytes]]:
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    fields: dict[str, list[bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        fields.setdefault(str(name), []).append(payload if isinstance(payload, bytes) else b"")
    return fields


class FakeRuntimeAPI:
    """A Runtime API (§4.1) whose runtimes are action servers launched on this host."""

    def __init__(self, base_dir: Path) -> None:
        self.base_dir = base_dir
        self.api_requests: list[Recorded] = []
        self.proxy_requests: list[Recorded] = []
        self.runtimes: dict[str, FakeRuntime] = {}
        self.sessions: dict[str, str] = {}  # session id -> runtime id
        # What new runtimes report as pod_status, one entry per poll (the last one repeats).
        self.pod_script: list[str] = ["ready"]
        self.path_mode = True
        self.launch_servers = True
        # Scripted answers before the normal handling: "METHOD /path" -> [(status, body)].
        self.api_script: dict[str, list[tuple[int, Any]]] = {}
        # Answers in the action server's place: "/path" -> [(status, body)], consumed.
        self.proxy_faults: dict[str, list[tuple[int, Any]]] = {}
        self.registry_prefix = "registry.example/openhands/"
        self.registry: set[str] = set()
        self.build_script: list[dict[str, Any]] = [{"status": "RUNNING"}, {"status": "SUCCESS"}]
        self.builds: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._http = httpx.Client(timeout=300)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake._handle(self)

            def do_POST(self) -> None:
                fake._handle(self)

            def log_message(self, *args: Any) -> None:
                return None

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    # -- queries for the tests ------------------------------------------------------------

    def calls(self, method: str, path_prefix: str) -> list[Recorded]:
        return [
            r for r in self.api_requests if r.method == method and r.path.startswith(path_prefix)
        ]

    def paths(self) -> list[str]:
        return [f"{r.method} {r.path}" for r in self.api_requests]

    def runtime_for(self, session_id: str) -> FakeRuntime:
        return self.runtimes[self.sessions[session_id]]

    def pause(self, runtime_id: str) -> None:
        """Pause a runtime behind the client's back (an idle sweep of the service)."""
        self.runtimes[runtime_id].status = "paused"

    # -- HTTP ---------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        split = urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        record = Recorded(
            handler.command,
            split.path,
            parse_qs(split.query),
            {k.lower(): v for k, v in handler.headers.items()},
            handler.rfile.read(length) if length else b"",
            time.monotonic(),
        )
        target = self._proxy_target(split.path)
        if target is not None:
            with self._lock:
                self.proxy_requests.append(record)
            status, headers, body = self._proxy(record, *target, split.query)
        else:
            with self._lock:
                self.api_requests.append(record)
            status, headers, body = self._api(record)
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def _proxy_target(self, path: str) -> tuple[FakeRuntime, str] | None:
        parts = path.split("/")
        for prefix_len in (1, 2):
            if len(parts) > prefix_len and parts[prefix_len] in self.runtimes:
                if prefix_len == 2 and parts[1] != "sandbox":
                    continue
                rest = "/" + "/".join(parts[prefix_len + 1 :])
                return self.runtimes[parts[prefix_len]], rest
        return None

    def _proxy(
        self, record: Recorded, runtime: FakeRuntime, rest: str, query: str
    ) -> tuple[int, dict[str, str], bytes]:
        faults = self.proxy_faults.get(rest)
        if faults:
            status, answer = faults.pop(0)
            return status, {"Content-Type": "application/json"}, json.dumps(answer).encode()
        if runtime.status != "running" or runtime.server is None:
            return 503, {"Content-Type": "application/json"}, b'{"detail": "runtime is paused"}'
        headers = {
            k: v for k, v in record.headers.items() if k in ("content-type", "x-session-api-key")
        }
        url = f"http://127.0.0.1:{runtime.server.port}{rest}" + (f"?{query}" if query else "")
        try:
            answer = self._http.request(record.method, url, content=record.body, headers=headers)
        except httpx.TransportError as e:
            return (
                502,
                {"Content-Type": "application/json"},
                json.dumps({"detail": str(e)}).encode(),
            )
        kept = {
            k: v
            for k, v in answer.headers.items()
            if k.lower() in ("content-type", "content-disposition")
        }
        return answer.status_code, kept, answer.content

    def _api(self, record: Recorded) -> tuple[int, dict[str, str], bytes]:
        status, answer = self._api_answer(record)
        return status, {"Content-Type": "application/json"}, json.dumps(answer).encode()

    def _api_answer(self, r: Recorded) -> tuple[int, Any]:
        if r.headers.get("x-api-key") != API_KEY:
            return 401, {"detail": "Invalid API Key"}
        scripted = self.api_script.get(f"{r.method} {r.path}")
        if scripted:
            return scripted.pop(0)
        if r.method == "GET" and r.path.startswith("/sessions/"):
            return self._session(r.path.removeprefix("/sessions/"))
        if r.method == "POST" and r.path == "/start":
            return self._start(r.json())
        if r.method == "GET" and r.path.startswith("/runtime/"):
            runtime = self.runtimes.get(r.path.removeprefix("/runtime/"))
            if runtime is None:
                return 404, {"detail": "Runtime not found"}
            pod_status = runtime.pod_statuses.pop(0) if len(runtime.pod_statuses) > 1 else None
            return 200, {
                "runtime_id": runtime.runtime_id,
                "pod_status": pod_status or runtime.pod_statuses[0],
                "restart_count": 0,
            }
        if r.method == "POST" and r.path in ("/pause", "/resume", "/stop"):
            return self._lifecycle(r.path, str(r.json()["runtime_id"]))
        if r.method == "GET" and r.path == "/registry_prefix":
            return 200, {"registry_prefix": self.registry_prefix}
        if r.method == "GET" and r.path == "/image_exists":
            image = r.query["image"][0]
            if image not in self.registry:
                return 200, {"exists": False}
            return 200, {"exists": True, "image": {"upload_time": "now", "image_size_bytes": 1}}
        if r.method == "POST" and r.path == "/build":
            fields = _multipart_fields(r.headers["content-type"], r.body)
            build_id = f"build-{len(self.builds) + 1}"
            self.builds[build_id] = {"fields": fields, "script": list(self.build_script)}
            return 200, {"build_id": build_id}
        if r.method == "GET" and r.path == "/build_status":
            build = self.builds[r.query["build_id"][0]]
            answer = dict(
                build["script"].pop(0) if len(build["script"]) > 1 else build["script"][0]
            )
            if answer["status"] == "SUCCESS":
                target = build["fields"]["target_image"][0].decode()
                self.registry.update(t.decode() for t in build["fields"].get("tags", []))
                self.registry.add(target)
                answer["image"] = target
            return 200, answer
        return 404, {"detail": f"no route {r.method} {r.path}"}

    def _session(self, session_id: str) -> tuple[int, Any]:
        runtime_id = self.sessions.get(session_id)
        if runtime_id is None:
            return 404, {"detail": "Session not found"}
        runtime = self.runtimes[runtime_id]
        if runtime.status == "stopped":
            return 200, {"status": "stopped"}
        return 200, {"status": runtime.status, **self._runtime_info(runtime)}

    def _runtime_info(self, runtime: FakeRuntime) -> dict[str, Any]:
        prefix = "" if self.path_mode else "/sandbox"
        return {
            "runtime_id": runtime.runtime_id,
            "url": f"{self.url}{prefix}/{runtime.runtime_id}",
            "work_hosts": {f"https://work-1-{runtime.runtime_id}.example": 12000},
            "session_api_key": runtime.session_api_key,
        }

    def _start(self, body: dict[str, Any]) -> tuple[int, Any]:
        runtime = FakeRuntime(
            runtime_id=f"rt{secrets.token_hex(4)}",
            session_id=body["session_id"],
            session_api_key=secrets.token_urlsafe(16),
            pod_statuses=list(self.pod_script),
        )
        if self.launch_servers:
            runtime.server = self._launch(body, runtime.session_api_key)
        with self._lock:
            self.runtimes[runtime.runtime_id] = runtime
            self.sessions[runtime.session_id] = runtime.runtime_id
        return 200, self._runtime_info(runtime)

    def _lifecycle(self, path: str, runtime_id: str) -> tuple[int, Any]:
        runtime = self.runtimes.get(runtime_id)
        if runtime is None:
            return 404, {"detail": "Runtime not found"}
        if path == "/pause":
            runtime.status = "paused"
        elif path == "/resume":
            runtime.status = "running"
            runtime.pod_statuses = ["ready"]
        else:
            runtime.status = "stopped"
            if runtime.server is not None:
                _stop_server(runtime.server)
        return 200, {"runtime_id": runtime_id}

    def _launch(self, body: dict[str, Any], session_api_key: str) -> ActionServer:
        """Run the requested command on this host: same module and arguments, but this
        interpreter, a free port, a temporary workspace and the current user."""
        command: list[str] = body["command"]
        module_at = command.index("-m") + 1
        args = command[module_at + 1 :]
        port = _free_port()
        workspace = tempfile.mkdtemp(prefix="ws-", dir=self.base_dir)
        home = tempfile.mkdtemp(prefix="home-", dir=self.base_dir)
        replacements = {
            "--working-dir": workspace,
            "--username": getpass.getuser(),
            "--user-id": str(os.getuid()),
        }
        args = [str(port), *args[1:]]
        for i in range(len(args) - 1):
            if args[i] in replacements:
                args[i + 1] = replacements[args[i]]
        env = {
            **os.environ,
            **body["environment"],
            "HOME": home,
            "SESSION_API_KEY": session_api_key,
            "SU_TO_USER": "false",
            "LOCAL_RUNTIME_MODE": "1",
            "OPENHANDS_REPO_PATH": str(PROJECT_ROOT),
            "PYTHONPATH": str(PROJECT_ROOT),
        }
        log = open(Path(home) / "server.log", "wb")  # noqa: SIM115 (the process owns it)
        process = subprocess.Popen(
            [sys.executable, "-u", "-m", command[module_at], *args],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        log.close()
        return ActionServer(process, port, workspace, home, command)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._server.shutdown()
        self._server.server_close()
        self._http.close()
        for runtime in self.runtimes.values():
            if runtime.server is not None:
                _stop_server(runtime.server)


def _stop_server(server: ActionServer) -> None:
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(timeout=10)
    subprocess.run(
        ["tmux", "-L", tmux_socket_name(server.port), "kill-server"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )


# --- fixtures and helpers ------------------------------------------------------------------------


@pytest.fixture
def fake_api(tmp_path: Path) -> Iterator[FakeRuntimeAPI]:
    api = FakeRuntimeAPI(tmp_path)
    try:
        yield api
    finally:
        api.close()


@pytest.fixture(autouse=True)
def _no_real_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the retry rules, drop the 2-60 s pauses between attempts."""
    monkeypatch.setattr(request_module, "rate_limit_wait", wait_none())
    monkeypatch.setattr(RemoteRuntime, "retry_wait", wait_none())
    monkeypatch.setattr(RemoteRuntime, "ready_poll_seconds", 0.05)
    monkeypatch.setattr(RemoteRuntimeBuilder, "poll_interval", 0.05)


def make_config(api: FakeRuntimeAPI, **sandbox: Any) -> OpenHandsConfig:
    config = OpenHandsConfig()
    config.enable_browser = False
    config.sandbox.api_key = SecretStr(API_KEY)
    config.sandbox.remote_runtime_api_url = api.url
    config.sandbox.runtime_container_image = "registry.example/openhands/runtime:ready-made"
    config.sandbox.remote_runtime_api_timeout = 60
    for key, value in sandbox.items():
        setattr(config.sandbox, key, value)
    return config


@dataclass
class Client:
    runtime: RemoteRuntime
    statuses: list[RuntimeStatus]
    stream: EventStream

    def connect(self) -> None:
        asyncio.run(self.runtime.connect())

    def close(self) -> None:
        self.runtime.close()
        self.stream.close()


@pytest.fixture
def clients() -> Iterator[list[Client]]:
    made: list[Client] = []
    yield made
    for client in made:
        client.close()


def new_client(
    clients: list[Client],
    config: OpenHandsConfig,
    sid: str = "conv-1",
    **kwargs: Any,
) -> Client:
    stream = EventStream(sid, InMemoryFileStore())
    statuses: list[RuntimeStatus] = []
    cls = get_runtime_cls("remote")
    assert cls is RemoteRuntime
    runtime = RemoteRuntime(
        config,
        stream,
        sid=sid,
        status_callback=lambda level, status, msg: statuses.append(status),
        **kwargs,
    )
    client = Client(runtime, statuses, stream)
    clients.append(client)
    return client


def run(runtime: RemoteRuntime, command: str) -> CmdOutputObservation:
    action = CmdRunAction(command)
    action.set_hard_timeout(60)
    observation = runtime.run_action(action)
    assert isinstance(observation, CmdOutputObservation), observation
    return observation


# --- 1: configuration ----------------------------------------------------------------------------


def test_constructor_requires_api_key_and_api_url(fake_api: FakeRuntimeAPI) -> None:
    stream = EventStream("conv-1", InMemoryFileStore())
    try:
        config = make_config(fake_api)
        config.sandbox.api_key = None
        with pytest.raises(ValueError, match="SANDBOX_API_KEY"):
            RemoteRuntime(config, stream)
        config = make_config(fake_api)
        config.sandbox.remote_runtime_api_url = ""
        with pytest.raises(ValueError, match="remote_runtime_api_url is required"):
            RemoteRuntime(config, stream)
    finally:
        stream.close()
    assert fake_api.api_requests == []


# --- 2, 3, 4, journey: a new runtime from a ready-made image ----------------------------------


def test_journey_start_run_write_read_and_stop(
    fake_api: FakeRuntimeAPI, clients: list[Client]
) -> None:
    client = new_client(clients, make_config(fake_api, runtime_startup_env_vars={"GREETING": "hi"}))
    client.connect()
    runtime = client.runtime
    assert client.statuses[0] == RuntimeStatus.STARTING_RUNTIME
    assert client.statuses[-1] == RuntimeStatus.READY
    served = fake_api.runtime_for("conv-1")
    assert served.server is not None
    assert runtime.runtime_id == served.runtime_id
    assert runtime.action_execution_server_url == f"{fake_api.url}/{served.runtime_id}"
    assert runtime.session_api_key == served.session_api_key

    # 3: the start request, no build.
    (start,) = fake_api.calls("POST", "/start")
    body = start.json()
    assert set(body) == START_KEYS
    assert body["image"] == "registry.example/openhands/runtime:ready-made"
    assert body["working_dir"] == "/openhands/code/"
    assert body["session_id"] == "conv-1"
    assert body["resource_factor"] == 1
    assert body["environment"] == {"GREETING": "hi"}
    assert not [p for p in fake_api.paths() if p.split()[1].split("?")[0] in BUILD_PATHS]
    # 4: the server command (our image names its interpreter; the arguments are the spec's).
    command = body["command"]
    module_at = command.index("-m") + 1
    assert command[module_at : module_at + 2] == [
        "openhands.runtime.action_execution_server",
        "60000",
    ]
    for word in ("--working-dir", "/workspace", "--username", "--user-id"):
        assert word in command

    # The journey: real actions through the proxy to the real server.
    assert run(runtime, "echo $GREETING-$((6*7))").content.strip() == "hi-42"
    written = runtime.run_action(FileWriteAction(path="notes/hello.txt", content="remote hello"))
    assert isinstance(written, FileWriteObservation), written
    read = runtime.run_action(FileReadAction(path="notes/hello.txt"))
    assert isinstance(read, FileReadObservation), read
    assert "remote hello" in read.content
    assert (
        (Path(served.server.workspace) / "notes" / "hello.txt")
        .read_text()
        .startswith("remote hello")
    )
    assert runtime.list_files("notes") == ["hello.txt"]

    # 2: X-API-Key on everything; X-Session-API-Key on every action-server request.
    assert fake_api.api_requests and fake_api.proxy_requests
    for recorded in fake_api.api_requests + fake_api.proxy_requests:
        assert recorded.headers.get("x-api-key") == API_KEY, recorded.path
    for recorded in fake_api.proxy_requests:
        assert recorded.headers.get("x-session-api-key") == served.session_api_key, recorded.path
    assert any(r.path.endswith("/execute_action") for r in fake_api.proxy_requests)

    # 11 (default): close stops the runtime; the fake then ends the server.
    client.close()
    (stop,) = fake_api.calls("POST", "/stop")
    assert stop.json() == {"runtime_id": served.runtime_id}
    assert served.server.process.poll() is not None


def test_sysbox_class_is_sent_as_runtime_class(
    fake_api: FakeRuntimeAPI, clients: list[Client]
) -> None:
    fake_api.launch_servers = False
    fake_api.pod_script = ["failed"]
    client = new_client(clients, make_config(fake_api, remote_runtime_class="sysbox"))
    with pytest.raises(AgentRuntimeUnavailableError):
        client.connect()
    (start,) = fake_api.calls("POST", "/start")
    assert set(start.json()) == START_KEYS | {"runtime_class"}
    assert start.json()["runtime_class"] == "sysbox-runc"


# --- 5, 6, 7: waiting for readiness --------------------------------------------------------------


def test_polls_while_pending_then_checks_alive(
    fake_api: FakeRuntimeAPI, clients: list[Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert RemoteRuntime.ready_poll_seconds == 0.05  # lowered here; the class default is 2 s
    monkeypatch.setattr(RemoteRuntime, "ready_poll_seconds", 0.2)
    # The runtime's sleep is recorded, with the number of polls made before it, instead of
    # measuring the wall clock between polls (which flaked on a busy machine); it waits
    # 10 ms for real, so the loop does not spin while the action server starts.
    real_sleep = remote_runtime_module.sleep_if_should_continue
    waits: list[tuple[float, int]] = []

    def recorded_sleep(seconds: float) -> None:
        waits.append((seconds, len(fake_api.calls("GET", "/runtime/"))))
        real_sleep(0.01)

    monkeypatch.setattr(remote_runtime_module, "sleep_if_should_continue", recorded_sleep)
    fake_api.pod_script = ["pending", "pending", "Pending", "ready"]
    client = new_client(clients, make_config(fake_api))
    client.connect()
    polls = fake_api.calls("GET", "/runtime/")
    # After each "pending" answer (and then while /alive fails) the client asked to wait
    # its period before the next poll: one wait between each two polls, none after the last.
    assert len(polls) >= 4
    assert waits[:3] == [(0.2, 1), (0.2, 2), (0.2, 3)]
    assert waits == [(0.2, n) for n in range(1, len(polls))]
    alive = [r for r in fake_api.proxy_requests if r.path.endswith("/alive")]
    assert alive and alive[0].at > polls[3].at
    assert RuntimeStatus.READY in client.statuses


def test_default_periods_are_the_specs() -> None:
    # Read before the autouse fixture lowers them for the other tests.
    assert DEFAULT_PERIODS == (2.0, 30.0, 30 * 60.0)


@pytest.mark.parametrize(
    ("pod_status", "text"),
    [
        (
            "CrashLoopBackOff",
            "Runtime crashed and is being restarted, potentially due to memory usage",
        ),
        ("failed", "Runtime is unavailable (status: failed). Please try again."),
        ("unknown", "Runtime is unavailable (status: unknown). Please try again."),
    ],
)
def test_broken_pod_fails_at_once_and_stops_the_runtime(
    fake_api: FakeRuntimeAPI, clients: list[Client], pod_status: str, text: str
) -> None:
    fake_api.launch_servers = False
    fake_api.pod_script = [pod_status]
    client = new_client(clients, make_config(fake_api))
    with pytest.raises(AgentRuntimeUnavailableError) as caught:
        client.connect()
    assert text in str(caught.value)
    assert len(fake_api.calls("GET", "/runtime/")) == 1
    assert len(fake_api.calls("POST", "/stop")) == 1
    assert client.runtime.closed


def test_runtime_that_stays_pending_times_out(
    fake_api: FakeRuntimeAPI, clients: list[Client]
) -> None:
    fake_api.launch_servers = False
    fake_api.pod_script = ["pending"]
    client = new_client(clients, make_config(fake_api, remote_runtime_init_timeout=2))
    with pytest.raises(AgentRuntimeNotReadyError):
        client.connect()
    assert len(fake_api.calls("GET", "/runtime/")) >= 2
    (stop,) = fake_api.calls("POST", "/stop")
    assert stop.json() == {"runtime_id": client.runtime.runtime_id}


# --- 8, 9, 11: existing runtimes and close ------------------------------------------------------


def test_sessions_are_reused_resumed_or_restarted(
    fake_api: FakeRuntimeAPI, clients: list[Client]
) -> None:
    # A kept-alive runtime is paused on close.
    first = new_client(clients, make_config(fake_api, keep_runtime_alive=True))
    first.connect()
    runtime_id = first.runtime.runtime_id
    assert runtime_id is not None
    run(first.runtime, "echo persisted > marker.txt")
    first.close()
    (pause,) = fake_api.calls("POST", "/pause")
    assert pause.json() == {"runtime_id": runtime_id}
    assert fake_api.runtimes[runtime_id].status == "paused"

    # Paused → resumed (no new start); kept alive without pausing → close sends nothing.
    second = new_client(
        clients, make_config(fake_api, keep_runtime_alive=True, pause_closed_runtimes=False)
    )
    second.connect()
    assert second.runtime.runtime_id == runtime_id
    (resume,) = fake_api.calls("POST", "/resume")
    assert resume.json() == {"runtime_id": runtime_id}
    assert len(fake_api.calls("POST", "/start")) == 1
    assert run(second.runtime, "cat marker.txt").content.strip() == "persisted"
    before = len(fake_api.api_requests)
    second.close()
    assert fake_api.api_requests[before:] == []

    # Running → reused as is; attached runtimes are never paused or stopped.
    third = new_client(clients, make_config(fake_api), attach_to_existing=True)
    third.connect()
    assert third.runtime.runtime_id == runtime_id
    assert len(fake_api.calls("POST", "/start")) == 1
    assert len(fake_api.calls("POST", "/resume")) == 1
    before = len(fake_api.api_requests)
    third.close()
    assert fake_api.api_requests[before:] == []

    # Default close stops it; the next connect starts a new runtime for the same session.
    fourth = new_client(clients, make_config(fake_api))
    fourth.connect()
    assert fourth.runtime.runtime_id == runtime_id
    fourth.close()
    assert [r.json() for r in fake_api.calls("POST", "/stop")] == [{"runtime_id": runtime_id}]
    fifth = new_client(clients, make_config(fake_api))
    fifth.connect()
    assert len(fake_api.calls("POST", "/start")) == 2
    assert fifth.runtime.runtime_id not in (None, runtime_id)
    assert run(fifth.runtime, "echo fresh").content.strip() == "fresh"


def test_attach_without_runtime_raises_not_found(
    fake_api: FakeRuntimeAPI, clients: list[Client]
) -> None:
    client = new_client(clients, make_config(fake_api), attach_to_existing=True)
    with pytest.raises(
        AgentRuntimeNotFoundError, match="Could not find existing runtime for SID: conv-1"
    ):
        client.connect()
    assert fake_api.paths() == ["GET /sessions/conv-1"]


# --- 10: building the image ------------------------------------------------------------------


@pytest.fixture
def no_wheels(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The build context's wheels would be fetched with the host pip: an empty folder will do,
    the fake service does not build anything."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    monkeypatch.setattr(runtime_build, "ensure_wheels", lambda: wheels)
    monkeypatch.setattr(runtime_build, "ensure_tool_wheels", lambda: wheels)
    monkeypatch.setenv("OH_RUNTIME_RUNTIME_IMAGE_REPO", "before-the-test")


def test_missing_image_is_built_by_the_service(
    fake_api: FakeRuntimeAPI, clients: list[Client], no_wheels: None
) -> None:
    config = make_config(fake_api, runtime_container_image=None)
    client = new_client(clients, config)
    client.connect()
    assert os.environ["OH_RUNTIME_RUNTIME_IMAGE_REPO"] == "registry.example/openhands/runtime"
    assert client.statuses[0] == RuntimeStatus.BUILDING_RUNTIME
    assert RuntimeStatus.STARTING_RUNTIME in client.statuses
    paths = fake_api.paths()
    assert paths[:2] == ["GET /sessions/conv-1", "GET /registry_prefix"]
    asked = [r.query["image"][0] for r in fake_api.calls("GET", "/image_exists")]
    # source tag, lock tag, versioned tag; then the built image.
    assert len(asked) == 4
    assert all(a.startswith("registry.example/openhands/runtime:oh_v") for a in asked)
    source, lock, versioned, built = asked
    assert source.startswith(lock) and source != lock and built == source
    (build,) = fake_api.builds.values()
    fields = build["fields"]
    assert fields["target_image"] == [source.encode()]
    assert fields["tags"] == [lock.encode(), versioned.encode()]
    with tarfile.open(
        fileobj=io.BytesIO(base64.b64decode(fields["context"][0])), mode="r:gz"
    ) as tar:
        names = tar.getnames()
    assert "./Dockerfile" in names
    assert any(name.startswith("./code/openhands/runtime/") for name in names)
    assert len(fake_api.calls("GET", "/build_status")) == 2
    (start,) = fake_api.calls("POST", "/start")
    assert start.json()["image"] == source
    assert run(client.runtime, "echo built").content.strip() == "built"


def test_failed_build_raises_build_error(
    fake_api: FakeRuntimeAPI, clients: list[Client], no_wheels: None
) -> None:
    fake_api.build_script = [{"status": "RUNNING"}, {"status": "FAILURE"}]
    client = new_client(clients, make_config(fake_api, runtime_container_image=None))
    with pytest.raises(
        AgentRuntimeBuildError,
        match=re.escape("Build failed with status: FAILURE. Build ID: build-1"),
    ):
        client.connect()
    fake_api.build_script = [{"status": "INTERNAL_ERROR", "error": "out of disk"}]
    again = new_client(clients, make_config(fake_api, runtime_container_image=None), sid="conv-2")
    with pytest.raises(AgentRuntimeBuildError, match=r"^out of disk$"):
        again.connect()
    assert not fake_api.calls("POST", "/start")


def test_existing_image_is_not_rebuilt(
    fake_api: FakeRuntimeAPI, clients: list[Client], no_wheels: None
) -> None:
    fake_api.launch_servers = False
    fake_api.pod_script = ["failed"]
    first = new_client(clients, make_config(fake_api, runtime_container_image=None))
    with pytest.raises(AgentRuntimeUnavailableError):
        first.connect()
    second = new_client(clients, make_config(fake_api, runtime_container_image=None), sid="conv-2")
    with pytest.raises(AgentRuntimeUnavailableError):
        second.connect()
    assert len(fake_api.builds) == 1
    starts = fake_api.calls("POST", "/start")
    assert starts[0].json()["image"] == starts[1].json()["image"]


# --- 12: the action server's errors ---------------------------------------------------------


def test_action_server_errors_map_to_disconnected(
    fake_api: FakeRuntimeAPI, clients: list[Client]
) -> None:
    client = new_client(clients, make_config(fake_api, keep_runtime_alive=True))
    client.connect()
    runtime = client.runtime
    for status, text in (
        (404, "Runtime is not responding. This may be temporary, please try again."),
        (502, "Runtime is temporarily unavailable."),
        (504, "Runtime is temporarily unavailable."),
    ):
        fake_api.proxy_faults["/execute_action"] = [(status, {"detail": "proxy says no"})]
        with pytest.raises(AgentRuntimeDisconnectedError) as caught:
            run(runtime, "echo never")
        assert text in str(caught.value) and "Original error" in str(caught.value)

    # Paused behind the client's back: 503 → /resume → the same request once more.
    fake_api.pause(str(runtime.runtime_id))
    sent_before = len([r for r in fake_api.proxy_requests if r.path.endswith("/execute_action")])
    assert run(runtime, "echo back-$((1+1))").content.strip() == "back-2"
    (resume,) = fake_api.calls("POST", "/resume")
    assert resume.json() == {"runtime_id": runtime.runtime_id}
    executes = [r for r in fake_api.proxy_requests if r.path.endswith("/execute_action")]
    first_try, *setup, retry = executes[sent_before:]
    assert first_try.body == retry.body  # the env set-up after the resume ran in between
    assert setup


def test_paused_runtime_without_keep_alive_is_unavailable(
    fake_api: FakeRuntimeAPI, clients: list[Client]
) -> None:
    client = new_client(clients, make_config(fake_api))
    client.connect()
    fake_api.pause(str(client.runtime.runtime_id))
    with pytest.raises(AgentRuntimeDisconnectedError, match="temporarily unavailable"):
        run(client.runtime, "echo never")
    assert not fake_api.calls("POST", "/resume")


def test_network_errors_are_retried(
    fake_api: FakeRuntimeAPI, clients: list[Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    client = new_client(clients, make_config(fake_api))
    client.connect()
    runtime = client.runtime
    real_request = runtime._http.request
    failures = [httpx.ConnectError("refused"), httpx.ReadError("reset")]

    def flaky(method: str, url: str, **kwargs: Any) -> httpx.Response:
        if url.endswith("/execute_action") and failures:
            raise failures.pop(0)
        return real_request(method, url, **kwargs)

    monkeypatch.setattr(runtime._http, "request", flaky)
    assert run(runtime, "echo third-time").content.strip() == "third-time"
    assert failures == []
    # Without retries the first network error is final.
    runtime.config.sandbox.remote_runtime_enable_retries = False
    failures.append(httpx.ConnectError("refused"))
    with pytest.raises(httpx.ConnectError):
        run(runtime, "echo never")


# --- 13: Runtime API errors ------------------------------------------------------------------


def test_rate_limited_api_calls_are_retried_three_times(
    fake_api: FakeRuntimeAPI, clients: list[Client]
) -> None:
    fake_api.launch_servers = False
    fake_api.pod_script = ["failed"]
    busy = (429, {"detail": "slow down"})
    fake_api.api_script["GET /sessions/conv-1"] = [busy, busy]
    client = new_client(clients, make_config(fake_api))
    with pytest.raises(AgentRuntimeUnavailableError):
        client.connect()
    assert len(fake_api.calls("GET", "/sessions/")) == 3
    assert len(fake_api.calls("POST", "/start")) == 1

    fake_api.api_script["GET /sessions/conv-2"] = [busy, busy, busy, busy]
    again = new_client(clients, make_config(fake_api), sid="conv-2")
    with pytest.raises(RequestHTTPError) as caught:
        again.connect()
    assert caught.value.response.status_code == 429
    assert caught.value.detail == "slow down"
    assert len(fake_api.calls("GET", "/sessions/conv-2")) == 3


def test_other_api_errors_carry_the_detail(fake_api: FakeRuntimeAPI, clients: list[Client]) -> None:
    config = make_config(fake_api)
    config.sandbox.api_key = SecretStr("wrong-key")
    client = new_client(clients, config)
    with pytest.raises(RequestHTTPError) as caught:
        client.connect()
    assert isinstance(caught.value, httpx.HTTPStatusError)
    assert caught.value.response.status_code == 401
    assert caught.value.detail == "Invalid API Key"
    assert str(caught.value).endswith("Details: Invalid API Key")
    assert len(fake_api.api_requests) == 1

    fake_api.api_script["POST /start"] = [(500, {"detail": "no capacity"})]
    failing = new_client(clients, make_config(fake_api), sid="conv-2")
    with pytest.raises(AgentRuntimeUnavailableError) as start_failed:
        failing.connect()
    assert isinstance(start_failed.value.__cause__, RequestHTTPError)
    assert start_failed.value.__cause__.detail == "no capacity"


# --- 14: VS Code URL and web hosts -----------------------------------------------------------


@pytest.mark.parametrize("path_mode", [True, False], ids=["path", "subdomain"])
def test_vscode_url_and_web_hosts(
    fake_api: FakeRuntimeAPI, clients: list[Client], path_mode: bool
) -> None:
    fake_api.path_mode = path_mode
    client = new_client(clients, make_config(fake_api), headless_mode=False)
    assert client.runtime.vscode_url is None  # not connected: no token
    client.connect()
    runtime = client.runtime
    fake_api.proxy_faults["/vscode/connection_token"] = [(200, {"token": "tok123"})]
    host = fake_api.url.removeprefix("http://")
    if path_mode:
        expected = f"http://{host}/{runtime.runtime_id}/vscode?tkn=tok123&folder=/workspace"
    else:
        expected = f"http://vscode-{host}/?tkn=tok123&folder=/workspace"
    assert runtime.vscode_url == expected
    assert runtime.web_hosts == {f"https://work-1-{runtime.runtime_id}.example": 12000}


def test_cleanup_leaves_no_server_running(fake_api: FakeRuntimeAPI, clients: list[Client]) -> None:
    client = new_client(clients, make_config(fake_api, keep_runtime_alive=True))
    client.connect()
    server = fake_api.runtime_for("conv-1").server
    assert server is not None and server.process.poll() is None
    client.close()
    fake_api.close()
    assert server.process.poll() is not None
    shutil.rmtree(server.workspace, ignore_errors=True)
