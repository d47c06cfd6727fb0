"""Conformance §17 item 24 (Docker only): container name, ports, image tag and lifecycle —
close() stops, a second connect() with the same sid restarts and reattaches, pause/resume
keeps env vars through ~/.bashrc (item 23), wait_until_alive fails at once on an exited
container, keep_runtime_alive leaves it running."""

from __future__ import annotations

import re
from collections.abc import Iterator

import docker
import httpx
import pytest

from openhands.core.exceptions import AgentRuntimeDisconnectedError
from openhands.runtime.builder.base_image import DEFAULT_BASE_IMAGE
from openhands.runtime.builder.docker import DockerRuntimeBuilder
from openhands.runtime.impl.docker.docker_runtime import DockerRuntime
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.runtime.utils.runtime_build import build_runtime_image
from openhands.runtime.utils.runtime_hash import OH_VERSION
from tests.runtime.conformance import Sandbox, open_sandbox, remove_container, require_docker

pytestmark = [pytest.mark.docker, pytest.mark.timeout(300)]


def docker_runtime(sandbox: Sandbox) -> DockerRuntime:
    assert isinstance(sandbox.runtime, DockerRuntime)
    return sandbox.runtime


@pytest.fixture(scope="module")
def client() -> docker.DockerClient:
    require_docker()
    return docker.from_env()


@pytest.fixture(scope="module")
def first(client: docker.DockerClient) -> Iterator[Sandbox]:
    """A runtime whose container outlives it (removed at the end of the module)."""
    with open_sandbox("docker", remove=False) as sandbox:
        name = sandbox.container_name
        try:
            yield sandbox
        finally:
            remove_container(name)


def test_container_name_ports_and_key(first: Sandbox, client: docker.DockerClient) -> None:
    container = client.containers.get(first.container_name)
    assert container.name == f"openhands-runtime-{first.runtime.sid}"
    port = int(first.runtime.action_execution_server_url.rsplit(":", 1)[1])
    assert 30000 <= port <= 39999
    bindings = container.attrs["NetworkSettings"]["Ports"][f"{port}/tcp"]
    assert bindings == [{"HostIp": "127.0.0.1", "HostPort": str(port)}]
    for published in container.attrs["NetworkSettings"]["Ports"].values():
        assert all(b["HostIp"] == "127.0.0.1" for b in published or [])
    # A random session key per container, required by the server.
    env = dict(item.split("=", 1) for item in container.attrs["Config"]["Env"])
    assert env["SESSION_API_KEY"] == first.runtime.session_api_key
    assert len(env["SESSION_API_KEY"]) >= 32
    denied = httpx.post(f"{first.runtime.action_execution_server_url}/list_files", json={})
    assert denied.status_code == 403


def test_image_tag_scheme(first: Sandbox, client: docker.DockerClient) -> None:
    image = docker_runtime(first).runtime_container_image
    assert image is not None
    assert re.fullmatch(
        rf"openhands-runtime:oh_v{re.escape(OH_VERSION)}_[0-9a-z]+_[0-9a-z]+", image
    )
    # The name the builder computes for the current source (it exists, so nothing is built).
    assert image == build_runtime_image(
        DEFAULT_BASE_IMAGE, DockerRuntimeBuilder(client), enable_browser=False
    )
    assert client.containers.get(first.container_name).image.tags.count(image) == 1


def test_second_runtime_reuses_the_image_and_keep_alive_leaves_it_running(
    first: Sandbox, client: docker.DockerClient
) -> None:
    def keep_alive(config: object) -> None:
        config.sandbox.keep_runtime_alive = True  # type: ignore[attr-defined]

    image = docker_runtime(first).runtime_container_image
    assert image is not None
    image_id = client.images.get(image).id
    with open_sandbox("docker", configure=keep_alive) as second:
        assert docker_runtime(second).runtime_container_image == image
        # Not rebuilt: every build stamps a new build time into the image, so a new id.
        assert client.images.get(image).id == image_id
        # So the status says starting, never building (that is only for a real build).
        assert second.statuses[0] == RuntimeStatus.STARTING_RUNTIME
        assert RuntimeStatus.BUILDING_RUNTIME not in second.statuses
        second.runtime.close()
        assert client.containers.get(second.container_name).status == "running"


def test_pause_and_resume_keep_env_vars_through_bashrc(
    first: Sandbox, client: docker.DockerClient
) -> None:
    first.runtime.add_env_vars({"RESUME_CHECK": "still here"})
    docker_runtime(first).pause()
    assert client.containers.get(first.container_name).status == "exited"
    docker_runtime(first).resume()
    assert first.sh("echo $RESUME_CHECK").content == "still here"
    # The server started from scratch: plugins work again.
    assert first.ipython("print(2 + 2)", include_extra=False).content == "4"


def test_close_stops_and_wait_until_alive_fails_at_once(
    first: Sandbox, client: docker.DockerClient
) -> None:
    key = first.runtime.session_api_key
    first.runtime.close()
    container = client.containers.get(first.container_name)  # stopped, not removed
    assert container.status == "exited"
    # At once: a stopped container is a disconnect, not a wait for the alive timeout.
    with pytest.raises(AgentRuntimeDisconnectedError):
        docker_runtime(first).wait_until_alive()

    # A later connect() with the same sid restarts that container and reattaches to it.
    with open_sandbox("docker", sid=first.runtime.sid, remove=False) as again:
        assert RuntimeStatus.BUILDING_RUNTIME not in again.statuses
        assert RuntimeStatus.RUNTIME_STARTED not in again.statuses  # nothing new created
        assert client.containers.get(again.container_name).id == container.id
        assert again.runtime.session_api_key == key
        assert again.sh("echo $RESUME_CHECK").content == "still here"
