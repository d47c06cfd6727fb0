"""A Docker sandbox started with the user's own CPU limit (docker_runtime_kwargs) and a 1 s
no-change timeout: long output under soft and hard timeouts behaves as 0.59's bash session
(runtime.md §4), and the terminal recovers with Ctrl-C."""

from __future__ import annotations

from collections.abc import Iterator

import docker
import pytest

from openhands.core.config import OpenHandsConfig
from openhands.events.action import CmdRunAction
from openhands.events.observation import CmdOutputObservation
from tests.runtime.conformance import Sandbox, open_sandbox

pytestmark = [pytest.mark.docker, pytest.mark.timeout(600)]


def _own_cpu_limit(config: OpenHandsConfig) -> None:
    # The engine refuses cpu_period/cpu_quota together with nano_cpus (our cpu_count).
    config.sandbox.docker_runtime_kwargs = {"cpu_period": 100000, "cpu_quota": 100000}


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with open_sandbox(
        "docker",
        configure=_own_cpu_limit,
        startup_env={"NO_CHANGE_TIMEOUT_SECONDS": "1"},
        plugins=[],
    ) as sandbox:
        yield sandbox


def _run(sandbox: Sandbox, action: CmdRunAction) -> CmdOutputObservation:
    obs = sandbox.runtime.run_action(action)
    assert isinstance(obs, CmdOutputObservation), obs
    return obs


def test_user_cpu_limit_replaces_the_default(sandbox: Sandbox) -> None:
    host_config = docker.from_env().containers.get(sandbox.container_name).attrs["HostConfig"]
    assert (host_config["CpuPeriod"], host_config["CpuQuota"]) == (100000, 100000)
    assert not host_config.get("NanoCpus")


def test_long_output_with_soft_then_hard_timeout(sandbox: Sandbox) -> None:
    for round_ in range(2):
        # Soft timeout: a prompt waiting for input returns with the command still running.
        asking = _run(
            sandbox,
            CmdRunAction(
                'read -p "Continue? [Y/n] " answer; if [[ $answer == "Y" ]]; '
                'then echo "Going on"; else echo "Stopped"; fi'
            ),
        )
        assert "Continue?" in asking.content
        assert asking.exit_code == -1
        answered = _run(sandbox, CmdRunAction("Y", is_input=True))
        assert "Going on" in answered.content
        assert answered.exit_code == 0
        assert "[The command completed with exit code 0.]" in answered.metadata.suffix

        # Hard timeout with 1000-character lines still streaming.
        stars = "$(printf '%1000s' | tr ' ' '*')"
        noisy = CmdRunAction(
            f'for j in $(seq 1 100); do echo "Line $j - round {round_} - {stars}"; sleep 1; done'
        )
        noisy.set_hard_timeout(2)
        timed_out = _run(sandbox, noisy)
        assert timed_out.exit_code == -1
        assert f"Line 1 - round {round_}" in timed_out.content

        # The loop still owns the terminal: a new command is refused until Ctrl-C.
        refused = _run(sandbox, CmdRunAction("ls"))
        assert refused.exit_code == -1
        assert "The previous command is still running" in refused.metadata.suffix
        interrupted = _run(sandbox, CmdRunAction("C-c", is_input=True))
        assert interrupted.exit_code == 130
        assert _run(sandbox, CmdRunAction("ls")).exit_code == 0
