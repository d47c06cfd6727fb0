"""Twenty sandboxes, one after the other, leave nothing behind (runtime.md §12.3, §12.6, §13).

Each is started, runs one command, is closed and deleted the way the server does it
(``close()`` then the class's ``delete(sid)``). Afterwards: no container or volume of theirs,
no port lock file, no process, nothing new in the temp dir. The temp dir is a private one
(``tempfile.tempdir`` and ``TMPDIR``, inherited by the local servers), so the before/after
comparison sees exactly what these runtimes wrote, whatever else runs on the machine.
The sandboxes start without plugins to keep this quick; every tenth one has the usual
AgentSkills and Jupyter, so the kernel's files are covered too.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docker
import psutil
import pytest

from openhands.runtime.builder.base_image import DEFAULT_BASE_IMAGE
from openhands.runtime.builder.docker import DockerRuntimeBuilder
from openhands.runtime.impl.docker.docker_runtime import DockerRuntime
from openhands.runtime.impl.local.local_runtime import LocalRuntime
from openhands.runtime.plugins import AgentSkillsRequirement, JupyterRequirement
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.runtime.server.options import tmux_socket_name
from openhands.runtime.utils.ports import LOCK_DIR_NAME
from openhands.runtime.utils.runtime_build import build_runtime_image
from tests.runtime.conformance import open_sandbox

pytestmark = pytest.mark.timeout(300)

SANDBOXES = 20


def plugins_for(index: int) -> list[Any]:
    return [AgentSkillsRequirement(), JupyterRequirement()] if index % 10 == 0 else []


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    monkeypatch.setenv("TMPDIR", str(root))
    yield root


def snapshot(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*")}


def assert_nothing_new(root: Path, before: set[str]) -> None:
    # The lock directory itself may stay (it is shared by all runtimes); its files may not.
    assert snapshot(root) - before - {LOCK_DIR_NAME} == set()


def own_descendants() -> set[int]:
    return {child.pid for child in psutil.Process().children(recursive=True)}


@pytest.mark.docker
def test_docker_sandboxes_leave_nothing_behind(
    private_tmp: Path, docker_builder: DockerRuntimeBuilder
) -> None:
    # The image exists before the snapshot (a build would use the temp dir while it runs).
    build_runtime_image(DEFAULT_BASE_IMAGE, docker_builder, enable_browser=False)
    client = docker.from_env()
    before = snapshot(private_tmp)
    names: list[str] = []
    volumes: set[str] = set()
    for index in range(SANDBOXES):
        with open_sandbox("docker", plugins=plugins_for(index), remove=False) as sandbox:
            assert sandbox.sh("echo ok").content == "ok"
            assert RuntimeStatus.RUNTIME_STARTED in sandbox.statuses  # a new container each
            names.append(sandbox.container_name)
            mounts = client.containers.get(sandbox.container_name).attrs["Mounts"]
            volumes |= {m["Name"] for m in mounts if m["Type"] == "volume"}
            sandbox.runtime.close()
            asyncio.run(DockerRuntime.delete(sandbox.runtime.sid))

    assert len(set(names)) == SANDBOXES
    assert [c.name for c in client.containers.list(all=True) if c.name in names] == []
    assert [v.name for v in client.volumes.list() if v.name in volumes] == []
    assert sorted((private_tmp / LOCK_DIR_NAME).iterdir()) == []
    assert_nothing_new(private_tmp, before)


def test_local_sandboxes_leave_nothing_behind(private_tmp: Path) -> None:
    before = snapshot(private_tmp)
    processes_before = own_descendants()
    ports: list[int] = []
    for index in range(SANDBOXES):
        with open_sandbox("local", plugins=plugins_for(index)) as sandbox:
            assert sandbox.sh("echo ok").content == "ok"
            assert isinstance(sandbox.runtime, LocalRuntime)
            ports.append(int(sandbox.runtime.action_execution_server_url.rsplit(":", 1)[1]))
            sandbox.runtime.close()
            asyncio.run(LocalRuntime.delete(sandbox.runtime.sid))

    assert own_descendants() - processes_before == set()
    # Their tmux servers daemonize (they are nobody's child): none may answer any more.
    tmux_sockets = {tmux_socket_name(port) for port in ports}
    for process in psutil.process_iter(["name", "cmdline"]):
        if (process.info["name"] or "").startswith("tmux"):
            cmdline = " ".join(process.info["cmdline"] or [])
            assert not any(socket in cmdline for socket in tmux_sockets), cmdline
    assert_nothing_new(private_tmp, before)
