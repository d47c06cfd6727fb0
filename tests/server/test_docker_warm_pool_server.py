"""The server's warm pool and clean-up on real Docker (issue 23): a conversation claims
the warm sandbox; after a SIGKILL the next start removes the old pool and stops the
conversation's sandbox; reopening restarts that same container and the agent answers;
deleting the conversation removes it; SIGTERM removes the pool."""

from __future__ import annotations

import asyncio
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from openhands.core.config import OpenHandsConfig
from openhands.runtime.impl.docker.sandboxes import owner_id
from openhands.runtime.impl.docker.warm_pool import LABEL_OWNER, POOL_NAME_PREFIX
from tests.server.helpers import (
    START_TIMEOUT,
    all_events,
    scripted_agent,
    settings_body,
    wait_agent_state,
    wait_status,
)
from tests.server.server_process import ServerProcess, config_toml
from tests.support.scripted_llm import ScriptedLLMServer


def _docker_available() -> bool:
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return False


pytestmark = [
    pytest.mark.docker,
    pytest.mark.skipif(
        not _docker_available(),
        reason="no Docker engine: run `bash containers/dev/ensure-docker.sh` (make test does)",
    ),
]
POOL_ENV = {"SANDBOX_WARM_POOL_SIZE": "1"}


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    server = ScriptedLLMServer([], fallback=scripted_agent).start()
    try:
        yield server
    finally:
        server.stop()


def _containers(owner: str) -> dict[str, dict[str, str]]:
    """name → {id, status} of the containers ``owner`` labelled."""
    listed = subprocess.run(
        [
            "docker",
            "ps",
            "-a",
            "--filter",
            f"label={LABEL_OWNER}={owner}",
            "--format",
            "{{.Names}} {{.ID}} {{.State}}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = {}
    for line in listed.splitlines():
        name, cid, state = line.split()
        found[name] = {"id": cid, "status": state}
    return found


def _wait_log(server: ServerProcess, pattern: str, count: int = 1) -> re.Match[str]:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        text = server.log_path.read_text(errors="replace")
        matches = list(re.finditer(pattern, text))
        if len(matches) >= count:
            return matches[count - 1]
        assert time.monotonic() < deadline, f"no {pattern!r} in the log:\n{server.log_tail()}"
        time.sleep(0.2)  # polling the log, not synchronising


async def _answer(http: httpx.AsyncClient, sid: str, message: str) -> None:
    events = await all_events(http, sid)
    after = max((e["id"] for e in events), default=-1)
    sent = await http.post(f"/api/conversations/{sid}/message", json={"message": message})
    assert sent.status_code == 200, sent.text
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        for event in await all_events(http, sid):
            if (
                event["id"] > after
                and event.get("action") == "message"
                and event["source"] == "agent"
                and event["args"]["content"] == f"echo: {message}"
            ):
                return
        await asyncio.sleep(0.25)  # polling the server, not synchronising
    raise AssertionError(f"no answer to {message!r}")


async def test_pool_claim_crash_clean_up_resume_delete_and_stop(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    root = tmp_path / "server"
    config = OpenHandsConfig(file_store="local", file_store_path=str(root / "store"))
    owner = owner_id(config)
    server = ServerProcess(root, config=config_toml(root, runtime="docker"), env=POOL_ENV)
    sid = ""
    try:
        server.start()
        _wait_log(server, r"Warm pool: openhands-pool-\w+ ready")
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
            stored = await http.post("/api/settings", json=settings_body(llm.base_url))
            assert stored.status_code == 200, stored.text
            created = await http.post("/api/conversations", json={"initial_user_msg": "hello"})
            assert created.status_code == 200, created.text
            sid = created.json()["conversation_id"]
            await wait_status(http, sid, "RUNNING")
            await wait_agent_state(http, sid, "awaiting_user_input")
        _wait_log(server, rf"Warm pool hit: openhands-pool-\w+ is now openhands-runtime-{sid}")
        container_id = _containers(owner)[f"openhands-runtime-{sid}"]["id"]
        _wait_log(server, r"Warm pool: openhands-pool-\w+ ready", count=2)  # refilled
        old_pool = {n for n in _containers(owner) if n.startswith(POOL_NAME_PREFIX)}
        assert len(old_pool) == 1

        server.kill()  # SIGKILL: nothing is cleaned up
        server.start()
        line = _wait_log(server, r"Sandbox clean-up at start-up: .*", count=2)
        assert "removed 1 warm-pool sandbox(es) of earlier processes" in line.group(0)
        assert "stopped 1 sandbox(es) of stored conversations" in line.group(0)
        now = _containers(owner)
        assert not old_pool & now.keys()
        assert now[f"openhands-runtime-{sid}"]["status"] == "exited"

        async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
            started = await http.post(f"/api/conversations/{sid}/start", json={})
            assert started.status_code == 200, started.text
            info = await wait_status(http, sid, "RUNNING")
            assert info["runtime_status"] == "STATUS$READY", info
            await wait_agent_state(http, sid, "awaiting_user_input")
            again = _containers(owner)[f"openhands-runtime-{sid}"]
            assert again == {"id": container_id, "status": "running"}  # its own, restarted
            await _answer(http, sid, "still there?")

            deleted = await http.delete(f"/api/conversations/{sid}")
            assert deleted.status_code == 200, deleted.text
            assert f"openhands-runtime-{sid}" not in _containers(owner)

        _wait_log(server, r"Warm pool: openhands-pool-\w+ ready", count=3)
        server.stop()  # SIGTERM
        assert not [n for n in _containers(owner) if n.startswith(POOL_NAME_PREFIX)]
    except BaseException:
        print(server.log_tail(200, access=False))
        raise
    finally:
        server.stop()
        for name in _containers(owner):
            subprocess.run(["docker", "rm", "-f", name], capture_output=True)
