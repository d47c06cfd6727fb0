"""The Docker warm pool on a real engine: claims, keys, secrets, fingerprints, clean-up,
zombie reaping and resuming a stopped sandbox (issue 23)."""

from __future__ import annotations

import asyncio
import json
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import docker
import httpx
import pytest
from docker.models.containers import Container

from openhands.core.config import OpenHandsConfig
from openhands.events.action import CmdRunAction
from openhands.events.observation import CmdOutputObservation
from openhands.events.stream import EventStream
from openhands.runtime.builder.docker import docker_client
from openhands.runtime.impl.docker.container_spec import container_env
from openhands.runtime.impl.docker.docker_runtime import (
    CONTAINER_NAME_PREFIX,
    DockerRuntime,
    stop_container,
)
from openhands.runtime.impl.docker.sandboxes import DockerSandboxes
from openhands.runtime.impl.docker.warm_pool import (
    LABEL_FINGERPRINT,
    LABEL_OWNER,
    POOL_NAME_PREFIX,
)
from openhands.runtime.plugins import AgentSkillsRequirement, JupyterRequirement
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.storage.memory import InMemoryFileStore
from tests.runtime.conformance import require_docker

pytestmark = pytest.mark.docker
REPO_ROOT = Path(__file__).resolve().parents[2]

PLUGINS = ("agent_skills", "jupyter")
POOL_READY_SECONDS = 300.0


def _config(memory_limit: str = "4g") -> OpenHandsConfig:
    config = OpenHandsConfig()
    config.enable_browser = False
    config.sandbox.memory_limit = memory_limit
    return config


def _owned(owner: str) -> list[Container]:
    return docker_client().containers.list(all=True, filters={"label": f"{LABEL_OWNER}={owner}"})


@contextmanager
def sandbox_services(
    pool_size: int, config: OpenHandsConfig | None = None, owner: str | None = None
) -> Iterator[DockerSandboxes]:
    """A DockerSandboxes of a throwaway owner; every container it owned is removed after."""
    require_docker()
    owner = owner or f"test-{secrets.token_hex(6)}"
    services = DockerSandboxes(
        config or _config(), owner, docker_client, pool_size=pool_size, plugins=PLUGINS
    )
    services.start()
    try:
        yield services
    finally:
        services.close()
        for container in _owned(owner):
            container.remove(force=True, v=True)


class Conversation:
    """A DockerRuntime of one conversation id, as the server builds it."""

    def __init__(
        self,
        services: DockerSandboxes | None,
        sid: str | None = None,
        config: OpenHandsConfig | None = None,
        env_vars: dict[str, str] | None = None,
        tokens: dict[str, str] | None = None,
    ) -> None:
        self.sid = sid or f"pool-{secrets.token_hex(5)}"
        self.statuses: list[RuntimeStatus] = []
        self.runtime = DockerRuntime(
            config or (services.config if services is not None else _config()),
            EventStream(self.sid, InMemoryFileStore()),
            sid=self.sid,
            plugins=[AgentSkillsRequirement(), JupyterRequirement()],
            env_vars=env_vars,
            git_provider_tokens=tokens,
            sandboxes=services,
            status_callback=lambda _level, status, _msg: self.statuses.append(status),
        )
        asyncio.run(self.runtime.connect())

    @property
    def container(self) -> Container:
        return docker_client().containers.get(f"{CONTAINER_NAME_PREFIX}{self.sid}")

    def sh(self, command: str) -> str:
        action = CmdRunAction(command)
        action.set_hard_timeout(60)
        observation = self.runtime.run_action(action)
        assert isinstance(observation, CmdOutputObservation), observation
        assert observation.exit_code == 0, observation.content
        return observation.content.strip()

    def post(self, path: str, key: str, body: object) -> httpx.Response:
        return httpx.post(
            f"{self.runtime.action_execution_server_url}{path}",
            headers={"X-Session-API-Key": key},
            json=body,
            timeout=30,
        )


def _pool_key_of(container: Container) -> str:
    # The pool key is the create-time SESSION_API_KEY, which `docker inspect` shows.
    return container_env(container)["SESSION_API_KEY"]


def _echo(conversation: Conversation, key: str) -> httpx.Response:
    action = {"action": "run", "args": {"command": "echo hi", "blocking": True}, "timeout": 30}
    return conversation.post("/execute_action", key, {"action": action})


def test_claims_never_share_a_sandbox_and_the_pool_key_stops_working() -> None:
    with sandbox_services(pool_size=2) as services:
        pool = services.pool
        assert pool is not None
        assert pool.wait_ready(2, POOL_READY_SECONDS)
        conversations: list[Conversation] = []
        try:
            for _ in range(4):
                conversations.append(Conversation(services))
            ids = {c.container.id for c in conversations}
            keys = {c.runtime.session_api_key for c in conversations}
            assert len(ids) == 4, "two conversations got the same sandbox"
            assert len(keys) == 4
            claimed = [c for c in conversations if c.runtime.sandbox_origin == "claimed"]
            assert len(claimed) >= 2 and pool.stats.hits == len(claimed)
            for conversation in claimed:
                assert RuntimeStatus.CLAIMING_WARM_RUNTIME in conversation.statuses
                pool_key = _pool_key_of(conversation.container)
                assert pool_key != conversation.runtime.session_api_key
                assert _echo(conversation, pool_key).status_code == 403
                # Nor can the pool key hand the sandbox over a second time.
                again = {"session_api_key": secrets.token_urlsafe(32)}
                assert conversation.post("/session_api_key", pool_key, again).status_code == 403
                assert conversation.runtime.session_api_key is not None
                assert _echo(conversation, conversation.runtime.session_api_key).status_code == 200
                # Each sees only its own files.
                conversation.sh(f"echo {conversation.sid} > /tmp/owner")
            for conversation in claimed:
                assert conversation.sh("cat /tmp/owner") == conversation.sid
        finally:
            for conversation in conversations:
                conversation.runtime.close()


def test_secrets_reach_the_shell_of_a_claimed_sandbox_but_not_docker_inspect() -> None:
    secret, token = f"s3cret-{secrets.token_hex(8)}", f"ghp_{secrets.token_hex(12)}"
    with sandbox_services(pool_size=1) as services:
        assert services.pool is not None and services.pool.wait_ready(1, POOL_READY_SECONDS)
        conversation = Conversation(
            services, env_vars={"MY_SECRET": secret}, tokens={"github": token}
        )
        try:
            assert conversation.runtime.sandbox_origin == "claimed"
            assert conversation.sh("echo $MY_SECRET") == secret
            assert conversation.sh("echo $GITHUB_TOKEN") == token
            inspected = json.dumps(conversation.container.attrs)
            assert secret not in inspected and token not in inspected
            assert conversation.sid in (conversation.container.name or "")
        finally:
            conversation.runtime.close()


def test_a_sandbox_made_for_other_settings_is_never_claimed_and_is_discarded() -> None:
    with sandbox_services(pool_size=1, config=_config("4g")) as services:
        pool = services.pool
        assert pool is not None and pool.wait_ready(1, POOL_READY_SECONDS)
        (old,) = [c for c in _owned(services.owner) if (c.name or "").startswith(POOL_NAME_PREFIX)]
        other = Conversation(services, config=_config("3g"))
        try:
            assert other.runtime.sandbox_origin == "created"
            assert other.container.id != old.id
            assert pool.stats.misses == 1 and pool.ready_count() == 1
        finally:
            other.runtime.close()
        # The server's settings change: the member made under the old ones goes.
        services.config.sandbox.memory_limit = "3g"
        pool.refresh()
        deadline = time.monotonic() + POOL_READY_SECONDS
        while True:
            members = [
                c for c in _owned(services.owner) if (c.name or "").startswith(POOL_NAME_PREFIX)
            ]
            fingerprints = {c.labels[LABEL_FINGERPRINT] for c in members}
            if old.id not in {c.id for c in members} and pool.ready_count() == 1:
                break
            assert time.monotonic() < deadline, "the stale pool sandbox was not replaced"
            time.sleep(0.5)  # polling the engine, not synchronising
        assert old.labels[LABEL_FINGERPRINT] not in fingerprints
        assert pool.stats.discarded >= 1


def test_pid_1_reaps_fifty_orphans() -> None:
    with sandbox_services(pool_size=1) as services:
        assert services.pool is not None and services.pool.wait_ready(1, POOL_READY_SECONDS)
        conversation = Conversation(services)
        try:
            assert conversation.sh("cat /proc/1/comm") == "docker-init"
            # Each subshell exits at once, leaving a short sleep whose parent is gone: PID 1
            # inherits it and must collect its exit status.
            conversation.sh("for i in $(seq 50); do (sleep 0.2 &); done; echo started")
            deadline = time.monotonic() + 60
            while True:
                left = conversation.sh("ps -eo stat=,comm= | grep -c -E '^Z|sleep' || true")
                if left == "0":
                    break
                assert time.monotonic() < deadline, f"{left} orphan(s) or zombie(s) remain"
                time.sleep(0.2)  # polling the sandbox, not synchronising
        finally:
            conversation.runtime.close()


def test_a_stopped_claimed_sandbox_restarts_with_its_own_key_and_files() -> None:
    with sandbox_services(pool_size=1) as services:
        assert services.pool is not None and services.pool.wait_ready(1, POOL_READY_SECONDS)
        first = Conversation(services)
        assert first.runtime.sandbox_origin == "claimed"
        key = first.runtime.session_api_key
        container_id = first.container.id
        first.sh("echo kept > /home/openhands/outside-workspace")
        first.runtime.close()  # stops the container, keeps it
        assert first.container.status == "exited"

        again = Conversation(services, sid=first.sid)
        try:
            assert again.runtime.sandbox_origin == "restarted"
            assert RuntimeStatus.RESTARTING_RUNTIME in again.statuses
            assert again.container.id == container_id
            assert again.runtime.session_api_key == key
            assert again.sh("cat /home/openhands/outside-workspace") == "kept"
            assert _echo(again, _pool_key_of(again.container)).status_code == 403
        finally:
            again.runtime.close()


_EARLIER_PROCESS = """
import sys, threading
from openhands.runtime.builder.docker import docker_client
from tests.runtime.test_docker_warm_pool import PLUGINS, _config
from openhands.runtime.impl.docker.sandboxes import DockerSandboxes
services = DockerSandboxes(_config(), sys.argv[1], docker_client, pool_size=1, plugins=PLUGINS)
services.start()
assert services.pool is not None and services.pool.wait_ready(1, 300)
print("ready", flush=True)
threading.Event().wait()
"""


def test_start_up_sweep_removes_pool_and_orphans_and_stops_stored() -> None:
    owner = f"test-{secrets.token_hex(6)}"
    with sandbox_services(pool_size=0, owner=owner) as earlier:
        stored = Conversation(earlier)
        orphan = Conversation(earlier)
        # An earlier server process with a warm pool dies without cleaning up.
        process = subprocess.Popen(
            [sys.executable, "-c", _EARLIER_PROCESS, owner],
            stdout=subprocess.PIPE,
            text=True,
            cwd=str(REPO_ROOT),
        )
        try:
            assert process.stdout is not None
            assert process.stdout.readline().strip() == "ready"
        finally:
            process.kill()
            process.wait(30)
        leftovers = {c.id for c in _owned(owner) if (c.name or "").startswith(POOL_NAME_PREFIX)}
        assert len(leftovers) == 1

        with sandbox_services(pool_size=0, owner=owner) as later:
            report = later.sweep(
                conversation_exists=lambda sid: sid == stored.sid,
                loop_running=lambda sid: False,
                container_prefix=CONTAINER_NAME_PREFIX,
                stop=stop_container,
            )
            left = {c.id for c in _owned(owner)}
            assert report.pool_removed == 1 and not leftovers & left
            assert report.orphans_removed == 1
            with pytest.raises(docker.errors.NotFound):
                docker_client().containers.get(f"{CONTAINER_NAME_PREFIX}{orphan.sid}")
            assert report.stopped == 1
            assert stored.container.status == "exited"  # kept for a fast resume
            assert str(report) == (
                "removed 1 warm-pool sandbox(es) of earlier processes, removed 1 sandbox(es) "
                "of deleted conversations, stopped 1 sandbox(es) of stored conversations"
            )
        stored.runtime.close()
        orphan.runtime.close()
