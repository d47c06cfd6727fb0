"""Fixtures for tests that need a real Docker engine.

They skip (with the reason) only when no engine answers `docker info`. CI runs
`containers/dev/ensure-docker.sh` first, so there they always run.
"""

from __future__ import annotations

import subprocess

import pytest

from openhands.runtime.builder.docker import DockerRuntimeBuilder


def _engine_problem() -> str | None:
    try:
        probe = subprocess.run(
            ["docker", "info"], capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL
        )
    except (FileNotFoundError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    return None if probe.returncode == 0 else (probe.stderr.strip() or "docker info failed")


@pytest.fixture(scope="session")
def docker_builder() -> DockerRuntimeBuilder:
    problem = _engine_problem()
    if problem:
        pytest.skip(
            "No Docker engine answers `docker info` "
            f"({problem.splitlines()[-1]}); run `bash containers/dev/ensure-docker.sh` as root. "
            "CI runs it before the tests."
        )
    return DockerRuntimeBuilder()
