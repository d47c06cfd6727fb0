"""LocalRuntime's warm servers (issue 23, item 3): ``DESIRED_NUM_WARM_SERVERS`` servers are
started ahead, each claimed by one runtime only, each with a fresh workspace of its own,
and whatever is left over is stopped when the process exits. Real server processes."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.events.action import CmdRunAction
from openhands.events.observation import CmdOutputObservation
from openhands.events.stream import EventStream
from openhands.runtime.impl.local import warm_servers
from openhands.runtime.impl.local.local_runtime import LocalRuntime
from openhands.runtime.impl.local.server_process import expected_key
from openhands.runtime.impl.local.warm_servers import count_from_env, warm_pool
from openhands.storage.memory import InMemoryFileStore

SETTLE_TIMEOUT = 180


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """One host environment for every runtime of a test (a warm server is only handed to a
    runtime that would start it with the same), and an empty pool before and after."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SESSION_API_KEY", "warm-test-key")
    monkeypatch.delenv(warm_servers.DESIRED_ENV, raising=False)
    monkeypatch.delenv(warm_servers.INITIAL_ENV, raising=False)
    warm_pool.stop_all()
    warm_pool.reopen()
    yield home
    warm_pool.stop_all()
    warm_pool.reopen()


def _config(**startup_env: str) -> OpenHandsConfig:
    config = OpenHandsConfig()
    config.enable_browser = False
    config.sandbox.runtime_startup_env_vars = dict(startup_env)
    return config


def _runtime(sid: str, config: OpenHandsConfig | None = None) -> LocalRuntime:
    runtime = LocalRuntime(
        config or _config(), EventStream(sid, InMemoryFileStore()), sid=sid, plugins=[]
    )
    asyncio.run(runtime.connect())
    return runtime


def _sh(runtime: LocalRuntime, command: str) -> str:
    action = CmdRunAction(command)
    action.set_hard_timeout(30)
    obs = runtime.run_action(action)
    assert isinstance(obs, CmdOutputObservation) and obs.exit_code == 0, obs
    return obs.content.strip()


def _settle() -> None:
    assert warm_pool.wait_settled(SETTLE_TIMEOUT), "warm servers still starting"


def _key(config: OpenHandsConfig | None = None) -> str:
    return expected_key(config or _config(), [], dict(os.environ))


@pytest.mark.parametrize(
    ("raw", "count"),
    [(None, 0), ("", 0), ("0", 0), ("2", 2), (" 3 ", 3), ("-1", 0), ("two", 0), ("1.5", 0)],
)
def test_the_count_variables(monkeypatch: pytest.MonkeyPatch, raw: str | None, count: int) -> None:
    if raw is None:
        monkeypatch.delenv(warm_servers.DESIRED_ENV, raising=False)
    else:
        monkeypatch.setenv(warm_servers.DESIRED_ENV, raw)
    assert count_from_env(warm_servers.DESIRED_ENV) == count


def test_no_warm_servers_unless_asked(host: Path) -> None:
    runtime = _runtime("warm-off")
    try:
        assert warm_pool.starting_count() == 0 and warm_pool.idle_count() == 0
    finally:
        runtime.close()


def test_claimed_servers_are_distinct_with_fresh_workspaces(
    host: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(warm_servers.DESIRED_ENV, "2")
    runtimes: list[LocalRuntime] = []
    try:
        first = _runtime("warm-first")  # nothing warm yet: a server of its own
        runtimes.append(first)
        _settle()
        assert warm_pool.idle_count(_key()) == 2
        warm_ports = set()
        for server in list(warm_pool._idle):
            warm_ports.add(server.port)
            assert os.listdir(server.workspace) == []
        _sh(first, "echo first > mine.txt")

        second = _runtime("warm-second")
        runtimes.append(second)
        third = _runtime("warm-third")
        runtimes.append(third)
        servers = [r._server for r in runtimes]
        assert all(s is not None for s in servers)
        ports = [s.port for s in servers if s is not None]
        pids = {s.process.pid for s in servers if s is not None}
        assert len(set(ports)) == 3 and len(pids) == 3
        assert set(ports[1:]) == warm_ports  # both came from the pool
        workspaces = [r.config.workspace_mount_path_in_sandbox for r in runtimes]
        assert len(set(workspaces)) == 3
        for runtime, workspace in zip(runtimes[1:], workspaces[1:], strict=True):
            assert _sh(runtime, "pwd") == workspace
            assert _sh(runtime, "ls -A | wc -l") == "0"  # fresh: not the first one's files
        _sh(second, "echo second > mine.txt")
        assert _sh(third, "ls -A | wc -l") == "0"
        assert _sh(first, "cat mine.txt") == "first"

        # The two claims started two more; a claimed server never goes back to the pool.
        _settle()
        assert warm_pool.idle_count(_key()) == 2
        assert not {s.port for s in warm_pool._idle} & set(ports)
    finally:
        for runtime in runtimes:
            runtime.close()
    for workspace in workspaces:
        assert not os.path.exists(workspace)  # temporary workspaces go with their runtime


def test_a_server_of_other_settings_is_not_claimed(
    host: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(warm_servers.DESIRED_ENV, "1")
    other_config = _config(WARM_FLAVOUR="a")
    first = _runtime("warm-a", other_config)
    try:
        _settle()
        assert warm_pool.idle_count(_key(other_config)) == 1
        (stale,) = warm_pool._idle
    finally:
        first.close()
    monkeypatch.delenv("WARM_FLAVOUR")  # what the first runtime put in the environment
    second = _runtime("warm-b", _config(WARM_FLAVOUR="b"))
    try:
        assert second._server is not None and second._server.port != stale.port
        _settle()
        # Refilling for the new settings stopped the server of the old ones.
        assert stale.process.poll() is not None
        assert not os.path.exists(stale.workspace)
        assert warm_pool.idle_count(_key(_config(WARM_FLAVOUR="b"))) == 1
    finally:
        second.close()


def test_setup_starts_the_initial_servers_for_the_given_plugins(
    host: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openhands.agenthub.codeact_agent.codeact_agent import CodeActAgent

    monkeypatch.setenv(warm_servers.INITIAL_ENV, "1")
    monkeypatch.setenv("SKIP_DEPENDENCY_CHECK", "1")
    config = _config()
    # Without the agent's plugins (the runtime layer does not know the agents) none start.
    LocalRuntime.setup(config, headless_mode=True)
    assert warm_pool.starting_count() + warm_pool.idle_count() == 0
    LocalRuntime.setup(config, headless_mode=True, plugins=CodeActAgent.sandbox_plugins)
    assert warm_pool.starting_count() + warm_pool.idle_count() == 1

    runtime = LocalRuntime(
        config,
        EventStream("warm-initial", InMemoryFileStore()),
        sid="warm-initial",
        plugins=list(CodeActAgent.sandbox_plugins),
    )
    try:
        asyncio.run(runtime.connect())  # claims the one still starting, if it is
        assert warm_pool.idle_count() == 0 and warm_pool.starting_count() == 0
        assert runtime._server is not None and "_warm_" in runtime._server.workspace
        assert _sh(runtime, "pwd") == runtime._server.workspace
    finally:
        runtime.close()


_AT_EXIT = """
import asyncio, json, os, sys
from openhands.core.config import OpenHandsConfig
from openhands.events.stream import EventStream
from openhands.runtime.impl.local.local_runtime import LocalRuntime
from openhands.runtime.impl.local.warm_servers import warm_pool
from openhands.storage.memory import InMemoryFileStore

config = OpenHandsConfig()
config.enable_browser = False
runtime = LocalRuntime(config, EventStream("exit", InMemoryFileStore()), sid="exit", plugins=[])
asyncio.run(runtime.connect())
assert warm_pool.wait_settled(170)
servers = [runtime._server] + list(warm_pool._idle)
print(json.dumps([[s.process.pid, s.workspace] for s in servers]), flush=True)
# No close(): what is left at exit must still be stopped.
"""


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
    except (FileNotFoundError, IndexError):
        return True
    return state == "Z"


def test_servers_left_over_are_stopped_at_exit(host: Path, tmp_path: Path) -> None:
    env = {**os.environ, warm_servers.DESIRED_ENV: "2"}
    done = subprocess.run(
        [sys.executable, "-c", _AT_EXIT],
        capture_output=True,
        text=True,
        env=env,
        timeout=SETTLE_TIMEOUT + 60,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    servers = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(servers) == 3  # the runtime's own and two warm ones
    deadline = time.monotonic() + 30
    while not all(_gone(pid) for pid, _ in servers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid, _ in servers if not _gone(pid)] == []
    assert [w for _, w in servers if os.path.exists(w)] == []
