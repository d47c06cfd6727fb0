"""The Runtime API service (openhands.runtime.remote_api) over two real Docker engines.

Real parts only: Redis, the host's engine plus a second ``dockerd`` of our own, the service
as its own process, the RemoteRuntime client and the sandbox image. The tests run in file
order as one journey: placement on the least-loaded engine (the second engine gets the
image by save/load on the way), actions, pause/resume, a killed and restarted service,
and the final stop. Everything is removed at the end, also after a failure.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import docker
import httpx
import pytest
from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.events.action import (
    CmdRunAction,
    FileReadAction,
    FileWriteAction,
    IPythonRunCellAction,
)
from openhands.events.observation import (
    CmdOutputObservation,
    FileReadObservation,
    FileWriteObservation,
    IPythonRunCellObservation,
)
from openhands.events.stream import EventStream
from openhands.runtime import get_runtime_cls
from openhands.runtime.builder.base_image import DEFAULT_BASE_IMAGE
from openhands.runtime.builder.docker import DockerRuntimeBuilder
from openhands.runtime.builder.remote import RemoteRuntimeBuilder
from openhands.runtime.errors import AgentRuntimeBuildError
from openhands.runtime.impl.remote.remote_runtime import RemoteRuntime
from openhands.runtime.plugins import AgentSkillsRequirement, JupyterRequirement
from openhands.runtime.remote_api.engines import LABEL_NAMESPACE, LABEL_RUNTIME_ID
from openhands.runtime.utils.runtime_build import build_runtime_image
from openhands.storage.memory import InMemoryFileStore
from tests.runtime.conformance import require_docker
from tests.support.docker_engine import SecondDockerEngine
from tests.support.runtime_api import ServiceProcess
from tests.support.services import RedisService, free_port

pytestmark = [pytest.mark.docker, pytest.mark.timeout(600)]

MAIN_ENGINE = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
API_TIMEOUT = 300.0  # a /start may include copying the image to the other engine


def _require_parts() -> None:
    require_docker()
    missing = [tool for tool in ("dockerd", "redis-server", "ip") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (containers/dev/ensure-services.sh)")
    if os.geteuid() != 0:
        pytest.skip("a second Docker engine needs root")


@dataclass
class Cluster:
    service: ServiceProcess
    api: httpx.Client
    engine: SecondDockerEngine
    image: str
    namespace: str
    clients: dict[str, docker.DockerClient]
    # Filled in by the tests as the journey goes on.
    ballast: dict[str, str] = field(default_factory=dict)  # runtime id → session id
    runtime: RemoteRuntime | None = None
    extra_runtimes: list[RemoteRuntime] = field(default_factory=list)

    @property
    def second(self) -> str:
        return self.engine.url

    def engine_of(self, runtime_id: str) -> str:
        """Which engine runs the container of ``runtime_id`` (asked of the engines)."""
        found = [
            name
            for name, client in self.clients.items()
            if client.containers.list(
                all=True, filters={"label": f"{LABEL_RUNTIME_ID}={runtime_id}"}
            )
        ]
        assert len(found) == 1, f"runtime {runtime_id} found on {found}"
        return found[0]

    def load(self) -> dict[str, int]:
        return {
            name: len(
                client.containers.list(filters={"label": f"{LABEL_NAMESPACE}={self.namespace}"})
            )
            for name, client in self.clients.items()
        }

    def start_ballast(self) -> tuple[str, str]:
        """A sandbox that only sleeps, started through the API; returns (runtime id, engine)."""
        session_id = f"ballast-{secrets.token_hex(4)}"
        answer = self.api.post(
            "/start",
            json={
                "image": self.image,
                "command": ["sleep", "infinity"],
                "working_dir": "/",
                "environment": {},
                "session_id": session_id,
                "resource_factor": 1,
            },
        )
        assert answer.status_code == 200, answer.text
        runtime_id = answer.json()["runtime_id"]
        self.ballast[runtime_id] = session_id
        return runtime_id, self.engine_of(runtime_id)

    def stop(self, runtime_id: str) -> None:
        answer = self.api.post("/stop", json={"runtime_id": runtime_id})
        assert answer.status_code == 200, answer.text


@pytest.fixture(scope="module")
def runtime_image() -> str:
    _require_parts()
    return build_runtime_image(DEFAULT_BASE_IMAGE, DockerRuntimeBuilder(), enable_browser=False)


@pytest.fixture(scope="module")
def cluster(runtime_image: str) -> Iterator[Cluster]:
    # Short: the second engine's socket path must fit a unix socket address.
    root = Path(tempfile.mkdtemp(prefix="ohra-", dir="/tmp"))
    namespace = f"test-{secrets.token_hex(4)}"
    api_key = secrets.token_urlsafe(24)
    key_file = root / "api-key"
    key_file.write_text(api_key + "\n")
    key_file.chmod(0o600)
    redis = RedisService(root / "redis")
    engine = SecondDockerEngine(root / "engine")
    service: ServiceProcess | None = None
    main = docker.DockerClient(base_url=MAIN_ENGINE)
    second: docker.DockerClient | None = None
    cluster: Cluster | None = None
    try:
        redis.start()
        engine.start()
        port = free_port()
        argv = [
            "--port", str(port),
            "--engines", f"{MAIN_ENGINE},{engine.url}",
            "--redis", redis.url,
            "--api-key-file", str(key_file),
            "--namespace", namespace,
            "--memory-gib", "2",
            "--cpus", "1",
        ]  # fmt: skip
        service = ServiceProcess(root, argv, port, api_key)
        service.start()
        api = httpx.Client(base_url=service.url, headers=service.headers, timeout=API_TIMEOUT)
        second = docker.DockerClient(base_url=engine.url)
        clients = {MAIN_ENGINE: main, engine.url: second}
        cluster = Cluster(service, api, engine, runtime_image, namespace, clients)
        yield cluster
    finally:
        if cluster is not None:
            for runtime in [
                *cluster.extra_runtimes,
                *([cluster.runtime] if cluster.runtime else []),
            ]:
                try:
                    runtime.close()
                except Exception:
                    pass  # e.g. the service is down: the engines are cleaned below
                runtime.event_stream.close()
            cluster.api.close()
        if service is not None:
            service.kill()
        for container in main.containers.list(
            all=True, filters={"label": f"{LABEL_NAMESPACE}={namespace}"}
        ):
            container.remove(force=True)
        main.close()
        if second is not None:
            second.close()
        engine.stop()
        redis.stop()
        shutil.rmtree(root, ignore_errors=True)


def _remote_runtime(cluster: Cluster, sid: str, attach: bool = False) -> RemoteRuntime:
    config = OpenHandsConfig()
    config.runtime = "remote"
    config.enable_browser = False
    config.sandbox.remote_runtime_api_url = cluster.service.url
    config.sandbox.api_key = SecretStr(cluster.service.api_key)
    config.sandbox.runtime_container_image = cluster.image
    cls = get_runtime_cls(config.runtime)
    assert cls is RemoteRuntime
    runtime = RemoteRuntime(
        config,
        EventStream(sid, InMemoryFileStore()),
        sid=sid,
        plugins=[AgentSkillsRequirement(), JupyterRequirement()],
        headless_mode=True,
        attach_to_existing=attach,
    )
    runtime.ready_poll_seconds = 0.2
    return runtime


def _sh(runtime: RemoteRuntime, command: str) -> str:
    action = CmdRunAction(command)
    action.set_hard_timeout(60)
    observation = runtime.run_action(action)
    assert isinstance(observation, CmdOutputObservation), observation
    assert observation.exit_code == 0, observation.content
    return observation.content


# --- the journey ---------------------------------------------------------------------------


def test_api_key_and_unknown_session(cluster: Cluster) -> None:
    assert httpx.get(f"{cluster.service.url}/sessions/nobody").status_code == 401
    wrong = httpx.get(f"{cluster.service.url}/registry_prefix", headers={"X-API-Key": "nope"})
    assert wrong.status_code == 401
    assert cluster.api.get("/sessions/nobody").status_code == 404
    assert cluster.api.get("/runtime/nothing").status_code == 404
    assert cluster.api.get("/image_exists", params={"image": cluster.image}).json()["exists"]


def test_build_on_the_engine_with_the_base_image(cluster: Cluster, tmp_path: Path) -> None:
    """§5 through the RemoteRuntimeBuilder client: a build succeeds with every tag on the
    engine that has its base image, a failing one reports FAILURE with the error."""
    builder = RemoteRuntimeBuilder(cluster.service.url, cluster.service.api_key)
    builder.poll_interval = 0.2
    repo = f"openhands-remote-api-test-{cluster.namespace}"
    tags = [f"{repo}:one", f"{repo}:two"]
    main = cluster.clients[MAIN_ENGINE]
    (tmp_path / "Dockerfile").write_text(f"FROM {DEFAULT_BASE_IMAGE}\nLABEL built-by=runtime-api\n")
    try:
        assert not builder.image_exists(tags[0])
        assert builder.build(tmp_path, tags) == tags[0]
        assert builder.image_exists(tags[0]) and builder.image_exists(tags[1])
        assert main.images.get(tags[1]).labels["built-by"] == "runtime-api"

        (tmp_path / "Dockerfile").write_text(f"FROM {DEFAULT_BASE_IMAGE}\nRUN exit 3\n")
        with pytest.raises(AgentRuntimeBuildError, match="non-zero code"):
            builder.build(tmp_path, [f"{repo}:broken"])
    finally:
        builder.session.close()
        for tag in tags:
            try:
                main.images.remove(tag, force=True)
            except docker.errors.ImageNotFound:
                pass


def test_sandbox_lands_on_least_loaded_engine(cluster: Cluster) -> None:
    """Load the engines until the second one has fewer sandboxes, checking every placement
    on the engines themselves; then the RemoteRuntime's sandbox must land on the second."""
    first_runtime, first_engine = cluster.start_ballast()
    assert first_engine == min(cluster.clients)  # a tie goes to the first name
    if first_engine == cluster.second:
        # Copied there by save/load: the second engine never built it.
        assert cluster.engine.docker("image", "inspect", cluster.image).returncode == 0
        _, other = cluster.start_ballast()
        assert other == MAIN_ENGINE  # now the least loaded
        cluster.stop(first_runtime)
    assert cluster.load() == {MAIN_ENGINE: 1, cluster.second: 0}

    sid = f"journey-{secrets.token_hex(4)}"
    runtime = _remote_runtime(cluster, sid)
    cluster.runtime = runtime
    asyncio.run(runtime.connect())
    assert runtime.runtime_id is not None
    assert cluster.engine_of(runtime.runtime_id) == cluster.second
    assert cluster.engine.docker("image", "inspect", cluster.image).returncode == 0
    assert cluster.load() == {MAIN_ENGINE: 1, cluster.second: 1}


def test_actions_run_in_the_sandbox(cluster: Cluster) -> None:
    runtime = cluster.runtime
    assert runtime is not None
    assert "hello-remote" in _sh(runtime, "echo hello-remote && whoami")

    written = runtime.run_action(FileWriteAction(path="/workspace/note.txt", content="carried\n"))
    assert isinstance(written, FileWriteObservation), written
    read = runtime.run_action(FileReadAction(path="/workspace/note.txt"))
    assert isinstance(read, FileReadObservation), read
    assert "carried" in read.content

    cell = IPythonRunCellAction("print(6 * 7)")
    cell.set_hard_timeout(60)
    result = runtime.run_action(cell)
    assert isinstance(result, IPythonRunCellObservation), result
    assert "42" in result.content


def test_secrets_stay_out_of_labels_and_logs(cluster: Cluster) -> None:
    runtime = cluster.runtime
    assert runtime is not None and runtime.runtime_id is not None
    key = runtime.session_api_key
    assert key
    client = cluster.clients[cluster.second]
    (container,) = client.containers.list(
        filters={"label": f"{LABEL_RUNTIME_ID}={runtime.runtime_id}"}
    )
    assert all(key not in value for value in container.labels.values())
    assert key not in cluster.service.log_text()
    # The action server insists on it.
    refused = httpx.post(f"{runtime.runtime_url}/list_files", json={}, timeout=10)
    assert refused.status_code == 403


def test_pause_and_resume(cluster: Cluster) -> None:
    runtime = cluster.runtime
    assert runtime is not None and runtime.runtime_url is not None
    sid = runtime.sid
    runtime.pause()
    assert cluster.api.get(f"/sessions/{sid}").json()["status"] == "paused"
    status = cluster.api.get(f"/runtime/{runtime.runtime_id}").json()
    assert status["pod_status"] == "paused"
    with pytest.raises(httpx.TransportError):  # frozen: no answer within the bound
        httpx.get(f"{runtime.runtime_url}/alive", timeout=2)

    runtime.resume()
    session = cluster.api.get(f"/sessions/{sid}").json()
    assert session["status"] == "running"
    assert session["runtime_id"] == runtime.runtime_id
    assert "after-resume" in _sh(runtime, "echo after-resume")
    read = runtime.run_action(FileReadAction(path="/workspace/note.txt"))
    assert isinstance(read, FileReadObservation) and "carried" in read.content


def test_restarted_service_finds_its_sandboxes(cluster: Cluster) -> None:
    runtime = cluster.runtime
    assert runtime is not None
    (ballast,) = cluster.clients[MAIN_ENGINE].containers.list(
        filters={"label": f"{LABEL_NAMESPACE}={cluster.namespace}"}
    )
    ballast_session = cluster.ballast[ballast.labels[LABEL_RUNTIME_ID]]
    cluster.service.kill()
    # While the service is down, its ballast sandbox disappears behind its back.
    ballast.remove(force=True)
    cluster.service.start()

    session = cluster.api.get(f"/sessions/{runtime.sid}").json()
    assert session["status"] == "running"
    assert session["runtime_id"] == runtime.runtime_id
    assert session["url"] == runtime.runtime_url
    assert session["session_api_key"] == runtime.session_api_key
    assert cluster.api.get(f"/runtime/{runtime.runtime_id}").json()["pod_status"] == "ready"
    assert cluster.api.get(f"/sessions/{ballast_session}").json()["status"] == "stopped"

    # A new client of the same conversation attaches to the same sandbox through the API.
    attached = _remote_runtime(cluster, runtime.sid, attach=True)
    cluster.extra_runtimes.append(attached)
    asyncio.run(attached.connect())
    assert attached.runtime_id == runtime.runtime_id
    assert "after-restart" in _sh(attached, "echo after-restart")
    assert "carried" in _sh(attached, "cat /workspace/note.txt")


def test_stop_removes_the_sandbox(cluster: Cluster) -> None:
    runtime = cluster.runtime
    assert runtime is not None and runtime.runtime_id is not None
    runtime_id, sid = runtime.runtime_id, runtime.sid
    runtime.close()  # not kept alive: POST /stop
    assert cluster.api.get(f"/sessions/{sid}").json()["status"] == "stopped"
    assert cluster.api.get(f"/runtime/{runtime_id}").json()["pod_status"] == "stopped"
    client = cluster.clients[cluster.second]
    assert (
        client.containers.list(all=True, filters={"label": f"{LABEL_RUNTIME_ID}={runtime_id}"})
        == []
    )
    assert cluster.load() == {MAIN_ENGINE: 0, cluster.second: 0}
