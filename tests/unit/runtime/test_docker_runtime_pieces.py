"""DockerRuntime pieces that need no engine: the stop on close and the volume spec."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.runtime.impl.docker import docker_runtime
from openhands.runtime.impl.docker.docker_runtime import (
    CONTAINER_NAME_PREFIX,
    DockerRuntime,
    stop_all_containers,
)


@dataclass
class FakeContainer:
    name: str
    stopped: bool = False

    def stop(self) -> None:
        self.stopped = True


@dataclass
class FakeContainers:
    items: list[FakeContainer] = field(default_factory=list)

    def list(self, all: bool = False) -> list[FakeContainer]:
        return self.items


@dataclass
class FakeEngine:
    containers: FakeContainers


def engine_with(*names: str) -> FakeEngine:
    return FakeEngine(FakeContainers([FakeContainer(n) for n in names]))


def stopped(engine: FakeEngine) -> list[str]:
    return [c.name for c in engine.containers.items if c.stopped]


def test_a_full_name_stops_only_that_container() -> None:
    engine = engine_with("openhands-runtime-ab", "openhands-runtime-abc", "other")
    stop_all_containers("openhands-runtime-ab", client=engine)  # type: ignore[arg-type]
    assert stopped(engine) == ["openhands-runtime-ab"]


def test_the_sandbox_prefix_stops_every_sandbox() -> None:
    engine = engine_with("openhands-runtime-ab", "openhands-runtime-abc", "other")
    stop_all_containers(CONTAINER_NAME_PREFIX, client=engine)  # type: ignore[arg-type]
    assert stopped(engine) == ["openhands-runtime-ab", "openhands-runtime-abc"]


def runtime_for_close(config: OpenHandsConfig, sid: str) -> DockerRuntime:
    runtime = DockerRuntime.__new__(DockerRuntime)
    runtime.config = config
    runtime.sid = sid
    runtime.container_name = f"{CONTAINER_NAME_PREFIX}{sid}"
    runtime.attach_to_existing = False
    runtime._port_locks = []
    return runtime


@pytest.mark.parametrize(
    ("keep_alive", "rm_all", "expected"),
    [
        (False, False, ["openhands-runtime-s1"]),
        (False, True, ["openhands-runtime-"]),
        (True, False, []),
    ],
)
def test_close_stops_through_the_module_function(
    monkeypatch: pytest.MonkeyPatch, keep_alive: bool, rm_all: bool, expected: list[str]
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(docker_runtime, "stop_all_containers", calls.append)
    monkeypatch.setattr(docker_runtime.ActionExecutionClient, "close", lambda self: None)
    config = OpenHandsConfig()
    config.sandbox.keep_runtime_alive = keep_alive
    config.sandbox.rm_all_containers = rm_all
    runtime = runtime_for_close(config, "s1")
    runtime._stop_logs = threading.Event()
    runtime._closed = False

    runtime.close()

    assert calls == expected


def test_volume_spec_with_modes() -> None:
    config = OpenHandsConfig()
    config.sandbox.volumes = "/h/one:/c/one,/h/two:/c/two:ro"
    runtime = DockerRuntime.__new__(DockerRuntime)
    runtime.config = config
    assert runtime._process_volumes() == {
        os.path.abspath("/h/one"): {"bind": "/c/one", "mode": "rw"},
        os.path.abspath("/h/two"): {"bind": "/c/two", "mode": "ro"},
    }


@dataclass
class RestartingContainer:
    """A stopped container whose first starts fail with the given engine errors."""

    failures: list[str]
    name: str = "openhands-runtime-restart"
    starts: int = 0

    def start(self) -> None:
        self.starts += 1
        if self.failures:
            from docker.errors import APIError

            raise APIError(self.failures.pop(0))


def test_a_restart_waits_while_the_previous_run_still_holds_its_ports(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(docker_runtime, "RESTART_RETRY_INTERVAL", 0)
    held = "driver failed programming external connectivity: port is already allocated"
    container = RestartingContainer([held, held])
    docker_runtime._start_when_ports_free(container)  # type: ignore[arg-type]
    assert container.starts == 3


def test_other_restart_failures_are_raised_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from docker.errors import APIError

    monkeypatch.setattr(docker_runtime, "RESTART_RETRY_INTERVAL", 0)
    container = RestartingContainer(["no such image"])
    with pytest.raises(APIError):
        docker_runtime._start_when_ports_free(container)  # type: ignore[arg-type]
    assert container.starts == 1


def test_a_port_held_for_good_is_raised_after_the_retry_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from docker.errors import APIError

    monkeypatch.setattr(docker_runtime, "RESTART_RETRY_INTERVAL", 0)
    monkeypatch.setattr(docker_runtime, "RESTART_RETRY_SECONDS", -1)  # window already over
    container = RestartingContainer(["Bind for 127.0.0.1:1: address already in use"] * 3)
    with pytest.raises(APIError):
        docker_runtime._start_when_ports_free(container)  # type: ignore[arg-type]
    assert container.starts == 1
