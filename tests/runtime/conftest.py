"""Fixtures for tests with real sandboxes (Docker containers and local server processes).

Docker tests skip (with the reason) only when no engine answers `docker info`. CI runs
`containers/dev/ensure-docker.sh` first, so there they always run.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from openhands.runtime.builder.docker import DockerRuntimeBuilder
from tests.runtime.conformance import RUNTIME_KINDS, Sandbox, open_sandbox, require_docker


@pytest.fixture(scope="session")
def docker_builder() -> DockerRuntimeBuilder:
    require_docker()
    return DockerRuntimeBuilder()


# --- the conformance suite's shared sandboxes (runtime.md §17) ---------------------------

SHARED_HOST_ENV = {"SANDBOX_ENV_FOOBAR": "BAZ", "SESSION_API_KEY": "conformance-local-key"}
SHARED_STARTUP_ENV = {"NO_CHANGE_TIMEOUT_SECONDS": "1", "STARTUP_VAR": "from-startup"}


# The conformance suite runs once more on Docker with the sandbox claimed from a warm pool
# (issue 23): the pool is off everywhere else in the suite.
SHARED_KINDS = [
    *RUNTIME_KINDS,
    pytest.param("docker-pool", marks=pytest.mark.docker, id="docker-pool"),
]


@pytest.fixture(scope="session", params=SHARED_KINDS)
def shared_sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """One runtime per kind for every conformance module that can share it.

    Bash's no-change timeout is 1 s (items 7 and 25 rely on it); the host has
    SANDBOX_ENV_FOOBAR set and a session key (LocalRuntime takes it from the host env).
    Its start is watched for item 1.
    """
    kind = "docker" if request.param == "docker-pool" else request.param
    with open_sandbox(
        kind,
        host_env=SHARED_HOST_ENV,
        startup_env=SHARED_STARTUP_ENV,
        watch_boot=True,
        warm_pool=request.param == "docker-pool",
    ) as sandbox:
        yield sandbox


@pytest.fixture
def sandbox(shared_sandbox: Sandbox) -> Sandbox:
    """The shared sandbox with a clean shell in the workspace."""
    shared_sandbox.reset_shell()
    return shared_sandbox


@pytest.fixture
def test_dir(sandbox: Sandbox, request: pytest.FixtureRequest) -> str:
    """A fresh directory inside the workspace for this test."""
    path = f"{sandbox.workspace}/{request.node.originalname}"
    sandbox.sh(f"rm -rf {path} && mkdir -p {path}")
    return path
