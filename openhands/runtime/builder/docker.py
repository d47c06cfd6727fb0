"""DockerRuntimeBuilder: builds with the docker CLI (output streamed line by line), inspects,
tags and imports with the Docker SDK. Every existence check is local; nothing is ever pulled."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import deque
from pathlib import Path

import docker
from docker.errors import DockerException, ImageNotFound

from openhands.core.logger import openhands_logger as logger
from openhands.runtime.builder.base import ProgressCallback, RuntimeBuilder
from openhands.runtime.errors import AgentRuntimeBuildError, AgentRuntimeEngineError

ENGINE_HINT = (
    "No Docker engine answers `docker info`. Start one, e.g. as root on Debian: "
    "`bash containers/dev/ensure-docker.sh` (installs docker.io if needed and starts dockerd)."
)
# How many trailing build lines go into a build error.
_ERROR_TAIL_LINES = 30


def docker_client() -> docker.DockerClient:
    """A client for the local engine, or AgentRuntimeEngineError saying how to start one."""
    try:
        client = docker.from_env()
        client.ping()
    except DockerException as exc:
        raise AgentRuntimeEngineError(f"{ENGINE_HINT} ({exc})") from exc
    return client


# A background build (the VS Code variant, built while conversations run) may use this
# share of the engine's CPUs. A nice value does not reach the build: its steps run under the
# engine, not under the CLI that started them.
BACKGROUND_CPU_SHARE = 0.5
_CPU_PERIOD_US = 100_000


class DockerRuntimeBuilder(RuntimeBuilder):
    def __init__(
        self, client: docker.DockerClient | None = None, *, background: bool = False
    ) -> None:
        """``background``: a build nobody waits for; its steps get a capped share of the CPU
        and the lowest weight (classic builder only: BuildKit has no such limits)."""
        self.client = client or docker_client()
        self.background = background

    # -- build ------------------------------------------------------------------------

    def build(
        self,
        path: Path,
        tags: list[str],
        platform: str | None = None,
        extra_build_args: list[str] | None = None,
        build_args: dict[str, str] | None = None,
        progress: ProgressCallback | None = None,
    ) -> str:
        if not tags:
            raise ValueError("build needs at least one tag")
        command, env = self._build_command(path, tags[0], platform, extra_build_args, build_args)
        logger.info("Building image %s: %s", tags[0], " ".join(command))
        tail = self._stream(command, env, progress)
        if tail is not None:
            raise AgentRuntimeBuildError(f"Image build of {tags[0]} failed:\n" + "\n".join(tail))
        if not self.image_exists(tags[0]):
            raise AgentRuntimeBuildError(f"Build finished but image {tags[0]} is missing")
        for extra in tags[1:]:
            self.tag(tags[0], extra)
        return tags[0]

    def _build_command(
        self,
        path: Path,
        tag: str,
        platform: str | None,
        extra_build_args: list[str] | None,
        build_args: dict[str, str] | None,
    ) -> tuple[list[str], dict[str, str]]:
        env = dict(os.environ)
        if _has_buildx():
            command = ["docker", "buildx", "build", "--progress=plain", "--load"]
        else:
            # The classic builder ships with every engine; buildx is optional on Debian.
            env["DOCKER_BUILDKIT"] = "0"
            command = ["docker", "build"]
        command.append(f"--tag={tag}")
        if self.background and command[1] == "build":
            command += self._background_limits()
        for key, value in (build_args or {}).items():
            command += ["--build-arg", f"{key}={value}"]
        if platform:
            command.append(f"--platform={platform}")
        command += list(extra_build_args or [])
        command.append(str(path))
        return command, env

    def _background_limits(self) -> list[str]:
        try:
            cpus = float(self.client.info().get("NCPU") or 1)
        except DockerException:
            cpus = 1.0
        quota = int(max(1.0, cpus * BACKGROUND_CPU_SHARE) * _CPU_PERIOD_US)
        return ["--cpu-shares=2", f"--cpu-period={_CPU_PERIOD_US}", f"--cpu-quota={quota}"]

    @staticmethod
    def _stream(
        command: list[str], env: dict[str, str], progress: ProgressCallback | None
    ) -> list[str] | None:
        """Run the build, forwarding each output line. Returns None on success, else the tail."""
        tail: deque[str] = deque(maxlen=_ERROR_TAIL_LINES)
        try:
            proc = subprocess.Popen(
                command,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                text=True,
                errors="replace",
            )
        except FileNotFoundError as exc:
            raise AgentRuntimeEngineError(f"The docker CLI is missing. {ENGINE_HINT}") from exc
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = raw.rstrip("\n")
            tail.append(line)
            logger.debug("[build] %s", line)
            if progress is not None:
                progress(line)
        return None if proc.wait() == 0 else list(tail)

    # -- inspect / tag / import -----------------------------------------------------------

    def image_exists(self, image_name: str, pull_from_repo: bool = False) -> bool:
        # pull_from_repo is part of the interface but we never pull (offline adaptation).
        return self.image_id(image_name) is not None

    def image_id(self, image_name: str) -> str | None:
        try:
            return self.client.images.get(image_name).id
        except ImageNotFound:
            return None
        except DockerException as exc:
            raise AgentRuntimeEngineError(f"{ENGINE_HINT} ({exc})") from exc

    def tag(self, source: str, target: str) -> None:
        repo, _, tag = target.rpartition(":")
        if not repo or "/" in tag:
            repo, tag = target, "latest"
        if not self.client.api.tag(source, repo, tag):
            raise AgentRuntimeBuildError(f"Could not tag {source} as {target}")

    def import_rootfs(
        self, tarball: Path, image_name: str, changes: list[str] | None = None
    ) -> str:
        repo, _, tag = image_name.rpartition(":")
        try:
            self.client.api.import_image_from_file(
                str(tarball), repository=repo, tag=tag, changes=changes or []
            )
        except DockerException as exc:
            raise AgentRuntimeBuildError(f"docker import of {tarball} failed: {exc}") from exc
        image_id = self.image_id(image_name)
        if image_id is None:
            raise AgentRuntimeBuildError(f"docker import did not create {image_name}")
        return image_id


def _has_buildx() -> bool:
    if shutil.which("docker") is None:
        return False
    probe = subprocess.run(
        ["docker", "buildx", "version"], capture_output=True, stdin=subprocess.DEVNULL
    )
    return probe.returncode == 0
