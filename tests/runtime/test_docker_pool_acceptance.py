"""Issue 23's acceptance on a real server process, real Docker and a scripted LLM over HTTP:

- conversations started one after another (20 in the issue; 10 here, see CONVERSATIONS)
  with a pool of 2 each get their own sandbox and key, and none finds what an earlier one
  left outside the shared workspace mount;
- a SIGKILL with 3 running conversations and a pool of 2, then a restart on the same store:
  the old pool is gone, the 3 sandboxes are stopped, each reopens on its own container and
  a delete removes its container;
- deleting a conversation whose start is blocked (a setup script that never ends) or whose
  loop is stuck (an LLM call that never answers) removes its sandbox and its volumes.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from openhands.core.config import OpenHandsConfig
from openhands.runtime.impl.docker.sandboxes import owner_id
from openhands.runtime.impl.docker.warm_pool import (
    LABEL_OWNER,
    LABEL_POOL_PROCESS,
    POOL_NAME_PREFIX,
    SANDBOX_KEY_FILE,
)
from tests.runtime.conformance import require_docker
from tests.server.helpers import (
    START_TIMEOUT,
    all_events,
    scripted_agent,
    settings_body,
    wait_agent_state,
    wait_status,
)
from tests.server.server_process import ServerProcess, config_toml
from tests.support.scripted_llm import ScriptedLLMServer, ScriptItem

pytestmark = pytest.mark.docker

RUNTIME_PREFIX = "openhands-runtime-"
# The issue asks for 20; the suite runs 10 (past the pool's two several times over, within
# the suite's time budget on 2 cores). OH_POOL_CONVERSATIONS=20 runs the full count.
CONVERSATIONS = int(os.environ.get("OH_POOL_CONVERSATIONS", "10"))
POOL_READY = r"Warm pool: openhands-pool-\w+ ready"


# --- helpers -------------------------------------------------------------------------------


def _docker(*args: str) -> str:
    return subprocess.run(
        ["docker", *args], capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL
    ).stdout


def _containers(owner: str) -> dict[str, dict[str, str]]:
    """name → {id, status} of the containers labelled as ``owner``'s."""
    listed = _docker(
        "ps", "-a", "--no-trunc", "--filter", f"label={LABEL_OWNER}={owner}",
        "--format", "{{.Names}} {{.ID}} {{.State}}",
    )  # fmt: skip
    found = {}
    for line in listed.splitlines():
        name, cid, state = line.split()
        found[name] = {"id": cid, "status": state}
    return found


def _pool_names(owner: str) -> set[str]:
    return {name for name in _containers(owner) if name.startswith(POOL_NAME_PREFIX)}


def _made_by(process: str) -> list[str]:
    """The containers a pool of server process ``process`` made and nobody claimed."""
    listed = _docker(
        "ps", "-a", "--filter", f"label={LABEL_POOL_PROCESS}={process}", "--format", "{{.Names}}"
    )
    return [name for name in listed.split() if name.startswith(POOL_NAME_PREFIX)]


def _session_key(name: str) -> str:
    """The key a sandbox answers: the one its claim wrote, else its create-time key."""
    kept = subprocess.run(
        ["docker", "exec", name, "cat", SANDBOX_KEY_FILE],
        capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    if kept.returncode == 0 and kept.stdout.strip():
        return kept.stdout.strip()
    env = _docker("inspect", "--format", "{{range .Config.Env}}{{println .}}{{end}}", name)
    return next(
        line.split("=", 1)[1] for line in env.splitlines() if line.startswith("SESSION_API_KEY=")
    )


def _volumes(name: str) -> list[str]:
    """The Docker volumes mounted in container ``name``."""
    listed = _docker(
        "inspect", "--format",
        '{{range .Mounts}}{{if eq .Type "volume"}}{{println .Name}}{{end}}{{end}}', name,
    )  # fmt: skip
    return listed.split()


def _volume_exists(volume: str) -> bool:
    done = subprocess.run(
        ["docker", "volume", "inspect", volume], capture_output=True, stdin=subprocess.DEVNULL
    )
    return done.returncode == 0


def _log_matches(server: ServerProcess, pattern: str) -> list[re.Match[str]]:
    return list(re.finditer(pattern, server.log_path.read_text(errors="replace")))


def _wait_log(server: ServerProcess, pattern: str, count: int = 1) -> re.Match[str]:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        matches = _log_matches(server, pattern)
        if len(matches) >= count:
            return matches[count - 1]
        assert time.monotonic() < deadline, f"no {pattern!r} in the log:\n{server.log_tail()}"
        time.sleep(0.2)  # polling the log, not synchronising


def _wait_pool(server: ServerProcess, owner: str, size: int) -> set[str]:
    """The names of the pool's sandboxes once it holds ``size`` ready ones (a sandbox is in
    the pool's listing only after its ready line; a refill for a changed image replaces
    members, so the log's count alone does not tell)."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        ready = {m.group(1) for m in _log_matches(server, r"Warm pool: (openhands-pool-\w+) ready")}
        names = _pool_names(owner) & ready
        if len(names) >= size:
            return names
        assert time.monotonic() < deadline, f"the pool never held {size}:\n{server.log_tail()}"
        time.sleep(0.2)  # polling Docker and the log, not synchronising


async def _wait_runtime_status(http: httpx.AsyncClient, sid: str, status: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    info: Any = None
    while time.monotonic() < deadline:
        info = (await http.get(f"/api/conversations/{sid}")).json()
        if info and info.get("runtime_status") == status:
            return
        await asyncio.sleep(0.2)  # polling the server, not synchronising
    raise AssertionError(f"{sid} never showed {status}; last seen {info}")


async def _command_output(http: httpx.AsyncClient, sid: str, marker: str) -> str:
    """The output of the agent's command whose output ends with ``marker``."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        for event in await all_events(http, sid):
            content = str(event.get("content", ""))
            if event.get("observation") == "run" and content.rstrip().endswith(marker):
                return content
        await asyncio.sleep(0.2)  # polling the server, not synchronising
    raise AssertionError(f"{sid}: no command output ending in {marker!r}")


async def _start(http: httpx.AsyncClient, message: str) -> str:
    created = await http.post("/api/conversations", json={"initial_user_msg": message})
    assert created.status_code == 200, created.text
    return str(created.json()["conversation_id"])


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    server = ScriptedLLMServer([], fallback=scripted_agent).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def docker_server(tmp_path: Path) -> Iterator[tuple[ServerProcess, str]]:
    """A (not yet started) server on Docker and its sandbox owner label; everything the
    owner has is removed afterwards."""
    require_docker()
    root = tmp_path / "server"
    config = OpenHandsConfig(file_store="local", file_store_path=str(root / "store"))
    owner = owner_id(config)
    server = ServerProcess(
        root, config=config_toml(root, runtime="docker"), env={"SANDBOX_WARM_POOL_SIZE": "2"}
    )
    try:
        yield server, owner
    finally:
        print(server.log_tail(300, access=False))  # shown when the test failed
        server.stop()
        for name in _containers(owner):
            subprocess.run(["docker", "rm", "-f", "-v", name], capture_output=True)


# --- conversations one after another, a pool of 2 ---------------------------------------------------------

# Marks the sandbox outside the workspace (which ``workspace_base`` shares on purpose) and in
# the shell's environment, after printing what an earlier conversation would have left.
_PROBE = (
    "cat /tmp/oh-owner ~/.oh-owner 2>/dev/null; echo env=${{OH_OWNER:-unset}}; "
    "echo {mark} > /tmp/oh-owner; echo {mark} > ~/.oh-owner; "
    "echo 'export OH_OWNER={mark}' >> ~/.bashrc; export OH_OWNER={mark}; echo probe-{mark}"
)


async def test_conversations_one_after_another_with_a_pool_of_two_never_share_a_sandbox(
    docker_server: tuple[ServerProcess, str], llm: ScriptedLLMServer
) -> None:
    server, owner = docker_server
    server.start()
    _wait_log(server, POOL_READY, count=2)
    seen_ids: set[str] = set()
    seen_keys: set[str] = set()
    async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
        stored = await http.post("/api/settings", json=settings_body(llm.base_url))
        assert stored.status_code == 200, stored.text
        for index in range(CONVERSATIONS):
            mark = f"conv{index}"
            sid = await _start(http, f"run: {_PROBE.format(mark=mark)}")
            output = await _command_output(http, sid, f"probe-{mark}")
            # Nothing of an earlier conversation: no owner file, no exported variable.
            assert "env=unset" in output, output
            assert "conv" not in output.replace(f"probe-{mark}", ""), output
            name = f"{RUNTIME_PREFIX}{sid}"
            container_id = _containers(owner)[name]["id"]
            assert container_id not in seen_ids, f"{mark} got an earlier sandbox"
            seen_ids.add(container_id)
            key = _session_key(name)
            assert key not in seen_keys, f"{mark} got an earlier session key"
            seen_keys.add(key)
            # No explicit stop: past the server's 3 running conversations the oldest is
            # closed in the background (its sandbox stopped, kept), and a sandbox closed so
            # must never be claimed again either.
    hits = _log_matches(server, r"Warm pool hit: openhands-pool-\w+ is now openhands-runtime-")
    assert len(hits) >= 2, "the conversations never claimed the warm sandboxes"


# --- SIGKILL with 3 running conversations, a pool of 2 -------------------------------------


async def test_sigkill_with_three_running_then_restart_cleans_up_and_each_reopens_its_own(
    docker_server: tuple[ServerProcess, str], llm: ScriptedLLMServer
) -> None:
    server, owner = docker_server
    server.start()
    _wait_log(server, POOL_READY, count=2)
    sids: list[str] = []
    async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
        stored = await http.post("/api/settings", json=settings_body(llm.base_url))
        assert stored.status_code == 200, stored.text
        for index in range(3):
            sid = await _start(http, f"hello {index}")
            await wait_status(http, sid, "RUNNING")
            await wait_agent_state(http, sid, "awaiting_user_input")
            sids.append(sid)
    names = [f"{RUNTIME_PREFIX}{sid}" for sid in sids]
    containers = _containers(owner)
    ids = {name: containers[name]["id"] for name in names}
    assert all(containers[name]["status"] == "running" for name in names)
    # The pool refills to 2 behind the three claims.
    old_pool = _wait_pool(server, owner, 2)
    old_process = _docker(
        "inspect", "--format", f'{{{{index .Config.Labels "{LABEL_POOL_PROCESS}"}}}}',
        sorted(old_pool)[0],
    ).strip()  # fmt: skip
    assert old_process

    server.kill()  # SIGKILL: the process cleans up nothing
    server.start()
    line = _wait_log(server, r"Sandbox clean-up at start-up: .*", count=2).group(0)
    assert "stopped 3 sandbox(es) of stored conversations" in line, line
    after = _containers(owner)
    assert not old_pool & after.keys(), "a pool sandbox of the killed process remains"
    # Nor one it was still creating (a member replaced for a changed image, say).
    assert not _made_by(old_process), "a pool sandbox of the killed process remains"
    states = {name: after.get(name, {}).get("status") for name in names}
    assert states == dict.fromkeys(names, "exited"), _docker("ps", "-a")

    async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
        for sid, name in zip(sids, names, strict=True):
            started = await http.post(f"/api/conversations/{sid}/start", json={})
            assert started.status_code == 200, started.text
            await wait_status(http, sid, "RUNNING")
            reopened = _containers(owner)[name]
            assert reopened == {"id": ids[name], "status": "running"}  # its own, restarted
        await wait_agent_state(http, sids[0], "awaiting_user_input")
        before = max(e["id"] for e in await all_events(http, sids[0]))
        sent = await http.post(f"/api/conversations/{sids[0]}/message", json={"message": "back"})
        assert sent.status_code == 200, sent.text
        events = await wait_agent_state(
            http,
            sids[0],
            "awaiting_user_input",
            after_id=before,
            until=lambda evs: any(e.get("args", {}).get("content") == "echo: back" for e in evs),
        )
        assert any(e["source"] == "agent" and e.get("action") == "message" for e in events)

        deleted = await http.delete(f"/api/conversations/{sids[1]}")
        assert deleted.status_code == 200, deleted.text
        remaining = _containers(owner)
        assert names[1] not in remaining
        assert remaining[names[0]]["id"] == ids[names[0]]
        assert remaining[names[2]]["id"] == ids[names[2]]


# --- deleting a conversation whose start or loop is stuck ----------------------------------

# Every sandbox of this server gets an anonymous volume, so the delete must remove it too.
_ANONYMOUS_VOLUME = """
[sandbox]
docker_runtime_kwargs = { mounts = [ { Target = "/oh-scratch", Type = "volume" } ] }
"""
_HANG = "hang in the LLM"


async def test_delete_removes_the_sandbox_and_volumes_of_a_blocked_start_and_a_stuck_loop(
    tmp_path: Path,
) -> None:
    require_docker()
    release = threading.Event()

    def agent(body: dict[str, Any]) -> ScriptItem:
        said = str(body.get("messages") or "")
        if body.get("tools") and _HANG in said and '"role": "tool"' not in said:
            release.wait(START_TIMEOUT)  # this loop's LLM call never answers in time
        return scripted_agent(body)

    root = tmp_path / "server"
    config = OpenHandsConfig(file_store="local", file_store_path=str(root / "store"))
    owner = owner_id(config)
    server = ServerProcess(
        root,
        config=config_toml(root, runtime="docker") + _ANONYMOUS_VOLUME,
        env={"SANDBOX_WARM_POOL_SIZE": "1"},
    )
    setup = root / "workspace" / ".openhands" / "setup.sh"
    setup.parent.mkdir(parents=True)
    # A set-up step that waits for a file nobody creates: the start stays blocked.
    setup.write_text("while [ ! -e /workspace/.openhands/go ]; do sleep 0.2; done\n")
    llm = ScriptedLLMServer([], fallback=agent).start()
    try:
        server.start()
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
            stored = await http.post("/api/settings", json=settings_body(llm.base_url))
            assert stored.status_code == 200, stored.text

            # 1. The start is blocked in the workspace set-up.
            starting = await _start(http, "hello")
            await _wait_runtime_status(http, starting, "STATUS$SETTING_UP_WORKSPACE")
            name = f"{RUNTIME_PREFIX}{starting}"
            volumes = _volumes(name)
            assert volumes, "the sandbox has no volume to check"
            deleted = await http.delete(f"/api/conversations/{starting}")
            assert deleted.status_code == 200, deleted.text
            assert name not in _containers(owner)
            assert not [v for v in volumes if _volume_exists(v)], "its volume remains"

            # 2. The loop is stuck in an LLM call that does not answer.
            setup.unlink()
            stuck = await _start(http, _HANG)
            await wait_status(http, stuck, "RUNNING")
            while not any(_HANG in str(r.messages) for r in llm.completion_requests):
                await asyncio.sleep(0.2)  # polling the LLM's record, not synchronising
            name = f"{RUNTIME_PREFIX}{stuck}"
            volumes = _volumes(name)
            deleted = await http.delete(f"/api/conversations/{stuck}")
            assert deleted.status_code == 200, deleted.text
            assert name not in _containers(owner)
            assert not [v for v in volumes if _volume_exists(v)], "its volume remains"
            missing = await http.get(f"/api/conversations/{stuck}")
            assert missing.status_code == 404 or missing.json() is None, missing.text
    except BaseException:
        print(server.log_tail(200, access=False))
        raise
    finally:
        release.set()
        server.stop()
        llm.stop()
        for leftover in _containers(owner):
            subprocess.run(["docker", "rm", "-f", "-v", leftover], capture_output=True)
