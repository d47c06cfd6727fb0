"""The Runtime API service's warm pool (issue 23) on the host's engine and a real Redis:
the first /start teaches the pool its template, the next RemoteRuntime claims a warm
sandbox (the pool key stops working), and a restarted service removes unclaimed ones."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import httpx
import pytest
from pydantic import SecretStr

from openhands.core.config import OpenHandsConfig
from openhands.events.action import CmdRunAction
from openhands.events.observation import CmdOutputObservation
from openhands.events.stream import EventStream
from openhands.runtime.builder.base_image import DEFAULT_BASE_IMAGE
from openhands.runtime.builder.docker import DockerRuntimeBuilder
from openhands.runtime.impl.remote.remote_runtime import RemoteRuntime
from openhands.runtime.plugins import AgentSkillsRequirement, JupyterRequirement
from openhands.runtime.remote_api.engines import LABEL_NAMESPACE, LABEL_RUNTIME_ID
from openhands.runtime.remote_api.warm_pool import LABEL_POOL
from openhands.runtime.utils.runtime_build import build_runtime_image
from openhands.storage.memory import InMemoryFileStore
from tests.runtime.conformance import require_docker
from tests.support.runtime_api import ServiceProcess
from tests.support.services import RedisService, free_port

pytestmark = [pytest.mark.docker, pytest.mark.timeout(900)]
MAIN_ENGINE = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
READY_SECONDS = 300.0


class Service:
    def __init__(self, root: Path, image: str) -> None:
        self.root, self.image = root, image
        self.namespace = f"pool-{secrets.token_hex(4)}"
        self.api_key = secrets.token_urlsafe(24)
        self.redis = RedisService(root / "redis")
        self.port = free_port()
        self.engine = docker.DockerClient(base_url=MAIN_ENGINE)
        self.process: ServiceProcess | None = None

    def start(self) -> None:
        key_file = self.root / "api-key"
        key_file.write_text(self.api_key)
        key_file.chmod(0o600)
        argv = [
            "--port", str(self.port),
            "--engines", MAIN_ENGINE,
            "--redis", self.redis.url,
            "--api-key-file", str(key_file),
            "--namespace", self.namespace,
            "--warm-pool-size", "1",
        ]  # fmt: skip
        self.process = ServiceProcess(self.root, argv, self.port, self.api_key)
        self.process.start()

    def log(self) -> str:
        return (self.root / "service.log").read_text(errors="replace")

    def wait_log(self, pattern: str, count: int = 1) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while len(re.findall(pattern, self.log())) < count:
            assert time.monotonic() < deadline, f"no {pattern!r}:\n{self.log()[-3000:]}"
            time.sleep(0.2)  # polling the log, not synchronising

    def warm(self) -> list[docker.models.containers.Container]:
        return self.engine.containers.list(
            all=True, filters={"label": [f"{LABEL_NAMESPACE}={self.namespace}", LABEL_POOL]}
        )

    def runtime(self, sid: str) -> RemoteRuntime:
        config = OpenHandsConfig()
        config.runtime = "remote"
        config.enable_browser = False
        config.sandbox.remote_runtime_api_url = f"http://127.0.0.1:{self.port}"
        config.sandbox.api_key = SecretStr(self.api_key)
        config.sandbox.runtime_container_image = self.image
        runtime = RemoteRuntime(
            config,
            EventStream(sid, InMemoryFileStore()),
            sid=sid,
            plugins=[AgentSkillsRequirement(), JupyterRequirement()],
            headless_mode=True,
        )
        runtime.ready_poll_seconds = 0.2
        return runtime


@pytest.fixture
def service() -> Iterator[Service]:
    require_docker()
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server (containers/dev/ensure-services.sh)")
    image = build_runtime_image(DEFAULT_BASE_IMAGE, DockerRuntimeBuilder(), enable_browser=False)
    root = Path(tempfile.mkdtemp(prefix="ohwp-", dir="/tmp"))
    service = Service(root, image)
    try:
        service.redis.start()
        service.start()
        yield service
    finally:
        if service.process is not None:
            service.process.kill()
        for container in service.engine.containers.list(
            all=True, filters={"label": f"{LABEL_NAMESPACE}={service.namespace}"}
        ):
            container.remove(force=True)
        service.engine.close()
        service.redis.stop()
        shutil.rmtree(root, ignore_errors=True)


def _echo(runtime: RemoteRuntime) -> str:
    action = CmdRunAction("echo warm")
    action.set_hard_timeout(60)
    observation = runtime.run_action(action)
    assert isinstance(observation, CmdOutputObservation) and observation.exit_code == 0
    return observation.content.strip()


def test_a_remote_runtime_claims_a_warm_sandbox(service: Service) -> None:
    import asyncio

    first = service.runtime(f"first-{secrets.token_hex(3)}")
    second = service.runtime(f"second-{secrets.token_hex(3)}")
    try:
        asyncio.run(first.connect())  # a miss: it teaches the pool what to start
        service.wait_log(r"Warm pool miss for session first-")
        service.wait_log(r"Warm pool: sandbox \w+ ready")
        (warm,) = service.warm()
        warm_id = warm.labels[LABEL_RUNTIME_ID]
        pool_key = dict(e.split("=", 1) for e in warm.attrs["Config"]["Env"])["SESSION_API_KEY"]

        asyncio.run(second.connect())
        service.wait_log(rf"Warm pool hit: sandbox {warm_id} for session second-")
        assert second.runtime_id == warm_id
        assert second.session_api_key not in (None, pool_key)
        assert _echo(second) == "warm"
        refused = httpx.post(
            f"{second.runtime_url}/execute_action",
            headers={"X-Session-API-Key": pool_key},
            json={"action": {"action": "run", "args": {"command": "true"}}},
        )
        assert refused.status_code == 403

        # The pool refills; a restart of the service removes what nobody claimed.
        service.wait_log(r"Warm pool: sandbox \w+ ready", count=2)
        leftover = {c.id for c in service.warm()} - {warm.id}
        assert len(leftover) == 1
        assert service.process is not None
        service.process.kill()
        service.start()
        remaining = {c.id for c in service.warm()}
        assert not leftover & remaining
        assert warm.id in remaining  # the claimed one is the second session's sandbox
        assert _echo(second) == "warm"
    finally:
        for runtime in (first, second):
            try:
                runtime.close()
            finally:
                runtime.event_stream.close()
