"""The action execution server inside the runtime image, started the way DockerRuntime does
(runtime.md §12.4), answering over a port published on 127.0.0.1."""

from __future__ import annotations

import secrets
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from openhands.runtime.builder.base_image import DEFAULT_BASE_IMAGE
from openhands.runtime.builder.docker import DockerRuntimeBuilder
from openhands.runtime.utils.runtime_build import build_runtime_image

pytestmark = [pytest.mark.docker, pytest.mark.timeout(900)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def sandbox(docker_builder: DockerRuntimeBuilder) -> Iterator[tuple[str, str]]:
    image = build_runtime_image(DEFAULT_BASE_IMAGE, docker_builder)
    port, key = free_port(), secrets.token_hex(8)
    command = [
        "/openhands/venv/bin/python", "-u", "-m", "openhands.runtime.action_execution_server",
        str(port), "--working-dir", "/workspace", "--username", "openhands",
        "--user-id", "1000", "--no-enable-browser",
    ]  # fmt: skip
    container = docker_builder.client.containers.run(
        image,
        command,
        entrypoint=[],
        working_dir="/openhands/code/",
        environment={"SESSION_API_KEY": key, "NO_CHANGE_TIMEOUT_SECONDS": "2"},
        ports={f"{port}/tcp": ("127.0.0.1", port)},
        name=f"openhands-runtime-test-{secrets.token_hex(4)}",
        detach=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{url}/alive", timeout=2).json() == {"status": "ok"}:
                    break
            except httpx.HTTPError:
                pass
            container.reload()
            if container.status == "exited" or time.monotonic() > deadline:
                pytest.fail("server did not start:\n" + container.logs().decode()[-3000:])
            time.sleep(0.5)
        yield url, key
    finally:
        container.remove(force=True)


def execute(sandbox: tuple[str, str], action: str, **args: Any) -> dict[str, Any]:
    url, key = sandbox
    body = {"action": {"action": action, "args": args, "timeout": 30}}
    response = httpx.post(
        f"{url}/execute_action", json=body, headers={"X-Session-API-Key": key}, timeout=60
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_bash_runs_as_the_sandbox_user(sandbox: tuple[str, str]) -> None:
    obs = execute(sandbox, "run", command="whoami && echo $HOME")
    assert obs["content"] == "openhands\n/home/openhands"
    meta = obs["extras"]["metadata"]
    assert meta["username"] == "openhands"
    assert meta["working_dir"] == "/workspace"
    assert execute(sandbox, "run", command="sudo -n true")["extras"]["metadata"]["exit_code"] == 0


def test_written_file_belongs_to_the_sandbox_user(sandbox: tuple[str, str]) -> None:
    written = execute(sandbox, "write", path="hello.sh", content='echo "Hello, World!"')
    assert written["extras"]["path"] == "/workspace/hello.sh"
    obs = execute(sandbox, "run", command="stat -c '%a %u' hello.sh && bash hello.sh")
    assert obs["content"] == "664 1000\nHello, World!"


def test_key_is_required(sandbox: tuple[str, str]) -> None:
    url, _ = sandbox
    response = httpx.post(f"{url}/execute_action", json={"action": {}}, timeout=10)
    assert response.status_code == 403
