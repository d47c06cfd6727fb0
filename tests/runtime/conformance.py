"""Helpers of the runtime conformance suite (runtime.md §17): real runtimes, real sandboxes.

``open_sandbox(kind)`` creates a DockerRuntime or LocalRuntime the way the app does
(``get_runtime_cls(kind)(config, stream, sid=..., plugins=[...], headless_mode=True)``),
connects it while watching ``/alive`` (for §17 item 1) and cleans everything up afterwards:
Docker containers are named ``openhands-runtime-test-<hex>`` and removed, LocalRuntime
servers are stopped and their temporary workspace and HOME deleted.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import queue
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from openhands.core.config import OpenHandsConfig
from openhands.events.action import Action, CmdRunAction, IPythonRunCellAction
from openhands.events.event import EventSource
from openhands.events.observation import CmdOutputObservation, Observation
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.runtime import get_runtime_cls
from openhands.runtime.impl.action_execution.action_execution_client import (
    ActionExecutionClient,
)
from openhands.runtime.plugins import AgentSkillsRequirement, JupyterRequirement
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.storage.memory import InMemoryFileStore

RUNTIME_KINDS = [
    pytest.param("docker", marks=pytest.mark.docker, id="docker"),
    pytest.param("local", id="local"),
]
CONTAINER_PREFIX = "openhands-runtime-"


def docker_problem() -> str | None:
    """Why Docker tests cannot run here, or None when an engine answers."""
    try:
        probe = subprocess.run(
            ["docker", "info"], capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL
        )
    except (FileNotFoundError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    return None if probe.returncode == 0 else (probe.stderr.strip() or "docker info failed")


def require_docker() -> None:
    problem = docker_problem()
    if problem:
        pytest.skip(
            f"No Docker engine answers `docker info` ({problem.splitlines()[-1]}); "
            "run `bash containers/dev/ensure-docker.sh` as root."
        )


def remove_container(name: str) -> None:
    subprocess.run(["docker", "rm", "-f", name], capture_output=True, stdin=subprocess.DEVNULL)


@dataclass
class BootWatch:
    """What ``GET /alive`` answered while the runtime was starting (§17 item 1)."""

    answers: list[str] = field(default_factory=list)  # "refused" or the JSON text
    first_ipython: str | None = None  # a cell run right after the first "ok"
    first_echo: str | None = None


@dataclass
class Sandbox:
    kind: str
    runtime: ActionExecutionClient
    stream: EventStream
    statuses: list[RuntimeStatus]
    user: str
    uid: int
    home: str
    boot: BootWatch | None = None
    # Every status_callback call as (level, status, message), in order.
    status_log: list[tuple[str, RuntimeStatus, str]] = field(default_factory=list)

    @property
    def workspace(self) -> str:
        return self.runtime.config.workspace_mount_path_in_sandbox

    @property
    def container_name(self) -> str:
        return f"{CONTAINER_PREFIX}{self.runtime.sid}"

    def run(self, command: str, timeout: float | None = None, **kwargs: Any) -> Observation:
        action = CmdRunAction(command, **kwargs)
        if timeout is not None:
            action.set_hard_timeout(timeout)
        return self.runtime.run_action(_with_default_timeout(self, action))

    def sh(self, command: str, timeout: float = 30) -> CmdOutputObservation:
        """Run a helper command that must succeed; returns its observation."""
        obs = self.run(command, timeout=timeout)
        assert isinstance(obs, CmdOutputObservation), obs
        assert obs.exit_code == 0, f"{command!r} failed: {obs.content}"
        return obs

    def ipython(self, code: str, timeout: float = 30, **kwargs: Any) -> Observation:
        action = IPythonRunCellAction(code, **kwargs)
        action.set_hard_timeout(timeout)
        return self.runtime.run_action(action)

    def via_stream(self, action: Action, wait: float = 60) -> Observation:
        """Publish ``action`` as the agent and return the observation caused by it."""
        seen: queue.Queue[Observation] = queue.Queue()
        callback_id = f"conformance-{uuid.uuid4().hex[:8]}"

        def on_event(event: Any) -> None:
            if isinstance(event, Observation):
                seen.put(event)

        self.stream.subscribe(EventStreamSubscriber.TEST, on_event, callback_id)
        try:
            self.stream.add_event(action, EventSource.AGENT)
            deadline = time.monotonic() + wait
            while True:
                observation = seen.get(timeout=max(0.1, deadline - time.monotonic()))
                if observation.cause == action.id:
                    return observation
        finally:
            self.stream.unsubscribe(EventStreamSubscriber.TEST, callback_id)

    def reset_shell(self) -> None:
        """Stop whatever a previous test left running and go back to the workspace."""
        interrupted = self.run("C-c", timeout=5, is_input=True)
        assert isinstance(interrupted, CmdOutputObservation)
        self.sh(f"cd {self.workspace}")


def _with_default_timeout(sandbox: Sandbox, action: Action) -> Action:
    if action.timeout is None:
        action.set_hard_timeout(sandbox.runtime.config.sandbox.timeout, blocking=False)
    return action


@contextmanager
def patched_environ(values: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def make_config(startup_env: dict[str, str] | None = None) -> OpenHandsConfig:
    config = OpenHandsConfig()
    config.enable_browser = False
    config.sandbox.runtime_startup_env_vars = dict(startup_env or {})
    return config


@contextmanager
def open_sandbox(
    kind: str,
    *,
    sid: str | None = None,
    host_env: dict[str, str] | None = None,
    startup_env: dict[str, str] | None = None,
    configure: Callable[[OpenHandsConfig], None] | None = None,
    watch_boot: bool = False,
    remove: bool = True,
    plugins: list[Any] | None = None,
    warm_pool: bool = False,
) -> Iterator[Sandbox]:
    """A connected runtime of ``kind``; torn down (container removed) on exit.

    ``plugins`` defaults to AgentSkills and Jupyter, as the app starts them. ``warm_pool``
    (Docker): the runtime claims its sandbox from a warm pool of one, made ready first."""
    if kind == "docker":
        require_docker()
    sid = sid or f"test-{secrets.token_hex(4)}"
    config = make_config(startup_env)
    if configure is not None:
        configure(config)
    stream = EventStream(sid, InMemoryFileStore())
    statuses: list[RuntimeStatus] = []
    status_log: list[tuple[str, RuntimeStatus, str]] = []

    def on_status(level: str, status: RuntimeStatus, message: str) -> None:
        statuses.append(status)
        status_log.append((level, status, message))

    if plugins is None:
        plugins = [AgentSkillsRequirement(), JupyterRequirement()]
    env = dict(host_env or {})
    home = "/home/openhands"
    temp_home: str | None = None
    if kind == "local":
        # Keep the agent's ~/.bashrc and ~/.gitconfig edits away from the real HOME.
        temp_home = tempfile.mkdtemp(prefix="oh-conformance-home-")
        env["HOME"] = home = temp_home
    user, uid = ("openhands", 1000) if kind == "docker" else (getpass.getuser(), os.getuid())

    services = _ready_pool(config, plugins, env) if warm_pool and kind == "docker" else None
    with patched_environ(env):
        extra = {"sandboxes": services} if services is not None else {}
        runtime = get_runtime_cls(kind)(
            config,
            stream,
            sid=sid,
            plugins=plugins,
            headless_mode=True,
            status_callback=on_status,
            **extra,
        )
        assert isinstance(runtime, ActionExecutionClient)
        sandbox = Sandbox(kind, runtime, stream, statuses, user, uid, home, status_log=status_log)
        try:
            if watch_boot:
                sandbox.boot = _connect_watching_alive(runtime)
            else:
                asyncio.run(runtime.connect())
        except BaseException:
            _teardown(sandbox, remove, temp_home, services)
            raise
    if services is not None:
        assert getattr(runtime, "sandbox_origin", None) == "claimed", "the warm pool missed"
    try:
        yield sandbox
    finally:
        _teardown(sandbox, remove, temp_home, services)


def _ready_pool(config: OpenHandsConfig, plugins: list[Any], env: dict[str, str]) -> Any:
    """Docker sandbox services with a pool of one sandbox for exactly this runtime, ready."""
    from openhands.runtime.builder.docker import docker_client
    from openhands.runtime.impl.docker.sandboxes import DockerSandboxes
    from openhands.runtime.utils.command import plugin_names

    with patched_environ(env):  # the pool reads SANDBOX_ENV_* as the runtime does
        services = DockerSandboxes(
            config,
            f"conformance-{secrets.token_hex(6)}",
            docker_client,
            pool_size=1,
            plugins=tuple(plugin_names(plugins)),
        )
        services.start()
        assert services.pool is not None and services.pool.wait_ready(1, 600)
    return services


def _teardown(sandbox: Sandbox, remove: bool, temp_home: str | None, services: Any = None) -> None:
    try:
        sandbox.runtime.close()
        if services is not None:
            services.close()
    finally:
        if sandbox.kind == "docker" and remove:
            remove_container(sandbox.container_name)
        sandbox.stream.close()
        if temp_home:
            shutil.rmtree(temp_home, ignore_errors=True)


def _server_port(runtime: ActionExecutionClient) -> int | None:
    try:
        url = runtime.action_execution_server_url
    except Exception:
        return None
    port = int(url.rsplit(":", 1)[1])
    return port or None


def _connect_watching_alive(runtime: ActionExecutionClient) -> BootWatch:
    """Connect in a thread while polling /alive; run a cell the moment it first says ok."""
    watch = BootWatch()
    failure: list[BaseException] = []

    def connect() -> None:
        try:
            asyncio.run(runtime.connect())
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    with httpx.Client(timeout=5) as client:
        while thread.is_alive():
            port = _server_port(runtime)
            if port is None:
                time.sleep(0.05)
                continue
            try:
                answer = client.get(f"http://127.0.0.1:{port}/alive").text
            except httpx.TransportError:
                answer = "refused"
            if not watch.answers or watch.answers[-1] != answer:
                watch.answers.append(answer)
            if answer != "refused":
                _probe_right_after_ok(client, runtime, port, watch)
                break
            time.sleep(0.05)
    thread.join(timeout=300)
    if failure:
        raise failure[0]
    return watch


def _probe_right_after_ok(
    client: httpx.Client, runtime: ActionExecutionClient, port: int, watch: BootWatch
) -> None:
    headers = {"X-Session-API-Key": runtime.session_api_key or ""}
    url = f"http://127.0.0.1:{port}/execute_action"
    for action, target in (
        ({"action": "run_ipython", "args": {"code": "print(6 * 7)"}}, "first_ipython"),
        ({"action": "run", "args": {"command": "echo ready"}}, "first_echo"),
    ):
        response = client.post(
            url, json={"action": {**action, "timeout": 30}}, headers=headers, timeout=60
        )
        setattr(watch, target, response.json().get("content", response.text))
