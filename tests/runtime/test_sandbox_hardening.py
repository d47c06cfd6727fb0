"""A Docker sandbox is confined and keeps secrets out of its container config.

`docker inspect` of a new sandbox shows the memory, pids and CPU limits from `[sandbox]`,
every capability dropped except the few the sandbox needs, and no secret value anywhere
(environment, labels, command line): custom secrets, provider tokens, `SANDBOX_ENV_*`
values and the LLM key. The secrets still reach the agent's shell through the action
server, and sudo (which needs SETUID/SETGID) still works while MKNOD is gone.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Iterator

import docker
import pytest
from pydantic import SecretStr

from openhands.events.observation import CmdOutputObservation
from openhands.events.stream import EventStream
from openhands.runtime.impl.docker.docker_runtime import SANDBOX_CAPABILITIES, DockerRuntime
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.storage.memory import InMemoryFileStore
from tests.runtime.conformance import (
    Sandbox,
    _teardown,
    make_config,
    patched_environ,
    require_docker,
)

pytestmark = [pytest.mark.docker, pytest.mark.timeout(300)]

CUSTOM = f"custom-{secrets.token_hex(12)}"
GITHUB = f"ghp_{secrets.token_hex(12)}"
HOST_ENV = f"hostenv-{secrets.token_hex(12)}"
LLM_KEY = f"sk-{secrets.token_hex(12)}"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    require_docker()
    config = make_config({"NO_CHANGE_TIMEOUT_SECONDS": "5"})
    config.get_llm_config().api_key = SecretStr(LLM_KEY)
    config.sandbox.memory_limit = "1g"
    config.sandbox.pids_limit = 512
    config.sandbox.cpu_count = 1.0
    sid = f"test-{secrets.token_hex(4)}"
    stream = EventStream(sid, InMemoryFileStore())
    statuses: list[RuntimeStatus] = []
    with patched_environ({"SANDBOX_ENV_FROM_HOST": HOST_ENV}):
        runtime = DockerRuntime(
            config,
            stream,
            sid=sid,
            plugins=[],
            env_vars={"MY_SECRET": CUSTOM},
            git_provider_tokens={"github": GITHUB},
            headless_mode=True,
            status_callback=lambda level, status, message: statuses.append(status),
        )
        box = Sandbox("docker", runtime, stream, statuses, "openhands", 1000, "/home/openhands")
        try:
            asyncio.run(runtime.connect())
        except BaseException:
            _teardown(box, True, None)
            raise
    try:
        yield box
    finally:
        _teardown(box, True, None)


def test_inspect_shows_limits_and_dropped_capabilities(sandbox: Sandbox) -> None:
    client = docker.from_env()
    attrs = client.api.inspect_container(sandbox.container_name)
    host = attrs["HostConfig"]
    assert host["Memory"] == 1024**3
    assert host["PidsLimit"] == 512
    assert host["NanoCpus"] == 1_000_000_000
    assert host["CapDrop"] == ["ALL"]
    assert sorted(c.removeprefix("CAP_") for c in host["CapAdd"]) == sorted(SANDBOX_CAPABILITIES)
    for dropped in ("MKNOD", "NET_RAW", "SYS_CHROOT", "SETPCAP", "SETFCAP"):
        assert dropped not in SANDBOX_CAPABILITIES

    # The kernel agrees: the server process (pid 1's tree, root) has no MKNOD in its bounding
    # set, and a root shell cannot create a device node.
    mknod = sandbox.run("sudo -n mknod /tmp/null-copy c 1 3")
    assert isinstance(mknod, CmdOutputObservation)
    assert mknod.exit_code != 0
    assert "Operation not permitted" in mknod.content


def test_no_secret_in_the_container_config(sandbox: Sandbox) -> None:
    client = docker.from_env()
    attrs = client.api.inspect_container(sandbox.container_name)
    text = json.dumps(attrs)
    for value in (CUSTOM, GITHUB, HOST_ENV, LLM_KEY):
        assert value not in text
    env_names = {item.split("=", 1)[0] for item in attrs["Config"]["Env"]}
    assert not env_names & {"MY_SECRET", "GITHUB_TOKEN", "FROM_HOST"}
    # The session key the host talks with is there (the server needs it); nothing else is.
    assert "SESSION_API_KEY" in env_names


def test_secrets_reach_the_shell_and_sudo_works(sandbox: Sandbox) -> None:
    assert sandbox.sh("echo $MY_SECRET").content.strip() == CUSTOM
    assert sandbox.sh("echo $GITHUB_TOKEN").content.strip() == GITHUB
    assert sandbox.sh("echo $FROM_HOST").content.strip() == HOST_ENV
    assert sandbox.sh("echo $NO_CHANGE_TIMEOUT_SECONDS").content.strip() == "5"
    # The ones that switch users and own files still work.
    assert sandbox.sh("sudo -n whoami").content.strip() == "root"
    sandbox.sh("sudo -n touch /tmp/owned && sudo -n chown openhands /tmp/owned")
    assert sandbox.sh("stat -c %U /tmp/owned").content.strip() == "openhands"
    assert sandbox.sh("sudo -n su openhands -c whoami").content.strip() == "openhands"
