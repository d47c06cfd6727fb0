"""What a Docker sandbox sees of the host: the workspace mount and nothing else (runtime.md §12.4).

A host file outside the mounts must not be readable from inside, not at its host path and not
anywhere in the container's file system; the workspace folder (``workspace_base``) is shared
both ways; the engine's socket is not handed in.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import docker
import pytest

from openhands.core.config import OpenHandsConfig
from openhands.events.observation import CmdOutputObservation
from tests.runtime.conformance import open_sandbox, require_docker

pytestmark = [pytest.mark.docker, pytest.mark.timeout(300)]


def test_only_the_workspace_mount_is_visible(tmp_path: Path) -> None:
    require_docker()
    secret = secrets.token_hex(16)
    hidden = tmp_path / "not-mounted" / "secret.txt"
    hidden.parent.mkdir()
    hidden.write_text(f"host secret {secret}\n")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    shared = secrets.token_hex(8)
    (workspace / "from-host.txt").write_text(f"shared {shared}\n")

    def mount_workspace(config: OpenHandsConfig) -> None:
        config.workspace_base = str(workspace)

    with open_sandbox("docker", configure=mount_workspace, plugins=[]) as sandbox:
        # The workspace is the one mount, and it is shared both ways.
        mounts = docker.from_env().containers.get(sandbox.container_name).attrs["Mounts"]
        assert [(m["Type"], m["Source"], m["Destination"]) for m in mounts] == [
            ("bind", str(workspace), "/workspace")
        ]
        assert sandbox.sh("cat /workspace/from-host.txt").content == f"shared {shared}"
        sandbox.sh("echo written inside > /workspace/from-sandbox.txt")
        assert (workspace / "from-sandbox.txt").read_text() == "written inside\n"

        # The host path of the secret does not exist in the sandbox.
        read = sandbox.run(f"cat {hidden}")
        assert isinstance(read, CmdOutputObservation)
        assert read.exit_code == 1
        assert "No such file or directory" in read.content
        assert secret not in read.content

        # Nor does its content anywhere in the container's file system, searched as root.
        # The pattern is put together by the shell so that no command line written here
        # holds it (only grep's own argv does, under /proc, which is not searched).
        half = len(secret) // 2
        search = sandbox.run(
            f"a={secret[:half]}; b={secret[half:]}; "
            "sudo -n grep -rlsF --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev "
            '-e "$a$b" / ; echo "grep exit code $?"',
            timeout=240,
        )
        assert isinstance(search, CmdOutputObservation)
        assert search.content.splitlines() == ["grep exit code 1"], search.content[-2000:]

        # The engine's socket is not handed in (it would give the agent the host).
        probe = sandbox.run("test -e /var/run/docker.sock")
        assert isinstance(probe, CmdOutputObservation) and probe.exit_code == 1
