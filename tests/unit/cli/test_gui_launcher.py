"""openhands.cli.gui_launcher: ``openhands serve`` runs our own server (cli.md §14.2).

The Docker checks run against stand-in ``docker`` scripts on PATH (this machine need not have
Docker); the launcher itself is run for real in a child process and stopped with SIGINT.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from openhands.cli import gui_launcher
from openhands.cli.gui_launcher import (
    DEFAULT_PORT,
    PORT_ENV_VAR,
    check_docker_requirements,
    ensure_config_dir_exists,
    resolve_port,
    sandbox_environment,
    server_command,
)

REPO_ROOT = Path(__file__).resolve().parents[3]
STARTUP_DEADLINE_SECONDS = 90.0
STOP_DEADLINE_SECONDS = 60.0
STOPPED_TEXT = "✓ OpenHands GUI server stopped successfully."


def _fake_docker(bin_dir: Path, exit_code: int) -> Path:
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "docker"
    script.write_text(f"#!/bin/sh\nexit {exit_code}\n")
    script.chmod(0o755)
    return bin_dir


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# --- Docker checks ---------------------------------------------------------------------------


def test_docker_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert check_docker_requirements() is False
    assert "❌ Docker is not installed or not in PATH." in capsys.readouterr().out


def test_docker_daemon_not_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", f"{_fake_docker(tmp_path / 'bin', 1)}:/usr/bin:/bin")
    assert check_docker_requirements() is False
    assert "❌ Docker daemon is not running." in capsys.readouterr().out


def test_docker_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", f"{_fake_docker(tmp_path / 'bin', 0)}:/usr/bin:/bin")
    assert check_docker_requirements() is True
    out = capsys.readouterr().out
    assert "❌" not in out
    assert "Running Docker command: docker info" in out


def test_docker_command_line_is_escaped_markup() -> None:
    line = gui_launcher._format_docker_command_for_logging(["docker", "run", "-e", "A=<b>&c"])
    assert line == "<grey>Running Docker command: docker run -e A=&lt;b&gt;&amp;c</grey>"
    assert gui_launcher._format_docker_command_for_logging([]) == (
        "<grey>Running Docker command: </grey>"
    )


class _StubServer:
    """Stands in for the server process: the first wait fails as an interrupted test would."""

    def __init__(self) -> None:
        self.waits = 0
        self.terminated = False

    def wait(self, timeout: float | None = None) -> int:
        self.waits += 1
        if self.waits == 1:
            raise RuntimeError("waiting was interrupted")
        return 0

    def poll(self) -> int | None:
        return 0 if self.terminated else None

    def terminate(self) -> None:
        self.terminated = True

    def kill(self) -> None:
        self.terminated = True


def test_server_is_stopped_when_waiting_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = _StubServer()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(gui_launcher, "check_docker_requirements", lambda: True)
    monkeypatch.setattr(gui_launcher.subprocess, "Popen", lambda *args, **kwargs: server)

    with pytest.raises(RuntimeError, match="interrupted"):
        gui_launcher.launch_gui_server(port=_free_port())

    assert server.terminated
    assert server.waits == 2  # the failed wait, then the one after terminate()


def test_launch_without_docker_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(SystemExit) as exit_info:
        gui_launcher.launch_gui_server()
    assert exit_info.value.code == 1
    assert "Docker is not installed" in capsys.readouterr().out
    # Nothing else happened: not even the config folder was created.
    assert not (tmp_path / "home").exists()


# --- configuration pieces --------------------------------------------------------------------


def test_ensure_config_dir_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    path = ensure_config_dir_exists()
    assert path == tmp_path / ".openhands"
    assert path.is_dir()
    assert ensure_config_dir_exists() == path  # already there: fine


def test_resolve_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PORT_ENV_VAR, raising=False)
    assert resolve_port() == DEFAULT_PORT == 3000
    monkeypatch.setenv(PORT_ENV_VAR, "4123")
    assert resolve_port() == 4123
    assert resolve_port(5000) == 5000
    monkeypatch.setenv(PORT_ENV_VAR, "not-a-port")
    with pytest.raises(SystemExit, match=PORT_ENV_VAR):
        resolve_port()


def test_server_command_is_make_run_equivalent() -> None:
    assert server_command(3000) == [
        sys.executable,
        "-m",
        "uvicorn",
        "openhands.server.listen:app",
        "--host",
        "127.0.0.1",
        "--port",
        "3000",
    ]


def test_sandbox_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert sandbox_environment(mount_cwd=False, gpu=False) == {}
    assert sandbox_environment(mount_cwd=False, gpu=True) == {"SANDBOX_ENABLE_GPU": "true"}
    assert sandbox_environment(mount_cwd=True, gpu=False) == {
        "SANDBOX_VOLUMES": f"{tmp_path}:/workspace:rw",
        "SANDBOX_USER_ID": str(os.getuid()),
    }


# --- the real thing --------------------------------------------------------------------------


@pytest.fixture
def launcher_dir(tmp_path: Path) -> Path:
    """A working folder whose config.toml keeps the server's files inside ``tmp_path``."""
    work = tmp_path / "project"
    (work / "workspace").mkdir(parents=True)
    (work / "config.toml").write_text(
        "[core]\n"
        'file_store = "local"\n'
        f'file_store_path = "{tmp_path / "store"}"\n'
        f'workspace_base = "{work / "workspace"}"\n'
        'jwt_secret = "gui-launcher-test-secret-of-at-least-32-bytes"\n'
    )
    return work


def _launcher_env(tmp_path: Path, port: int) -> dict[str, str]:
    # A developer's own LLM, agent and sandbox settings must not reach the server.
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("LLM_", "AGENT_", "SANDBOX_"))
    }
    bin_dir = _fake_docker(tmp_path / "bin", 0)
    env.update(
        {
            "PATH": f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(tmp_path / "home"),
            "PYTHONPATH": str(REPO_ROOT),
            PORT_ENV_VAR: str(port),
            "OPENHANDS_WARMUP": "false",
            "SERVE_FRONTEND": "false",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[str]]]:
    """Processes the test starts; whatever is left of them is killed at the end."""
    processes: list[subprocess.Popen[str]] = []
    yield processes
    for process in processes:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def _wait_alive(process: subprocess.Popen[str], url: str) -> None:
    deadline = time.monotonic() + STARTUP_DEADLINE_SECONDS
    with httpx.Client(timeout=2.0) as client:
        while True:
            if process.poll() is not None:
                raise AssertionError(f"launcher exited early:\n{process.communicate()[0]}")
            with contextlib.suppress(httpx.HTTPError):
                if client.get(f"{url}/alive").status_code == 200:
                    return
            if time.monotonic() > deadline:
                raise AssertionError(f"no /alive at {url} before the deadline")
            time.sleep(0.05)


def test_serve_runs_server_until_ctrl_c(
    tmp_path: Path, launcher_dir: Path, started: list[subprocess.Popen[str]]
) -> None:
    port = _free_port()
    launcher = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from openhands.cli.gui_launcher import launch_gui_server\n"
            "launch_gui_server(mount_cwd=True, gpu=True)\n",
        ],
        cwd=launcher_dir,
        env=_launcher_env(tmp_path, port),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # Its own group, so cleanup can reach the server too; SIGINT below goes to the
        # launcher alone, as if only it had been interrupted.
        start_new_session=True,
    )
    started.append(launcher)

    _wait_alive(launcher, f"http://127.0.0.1:{port}")

    servers = psutil.Process(launcher.pid).children()
    assert len(servers) == 1
    server_env = servers[0].environ()
    assert server_env["SANDBOX_VOLUMES"] == f"{launcher_dir}:/workspace:rw"
    assert server_env["SANDBOX_USER_ID"] == str(os.getuid())
    assert server_env["SANDBOX_ENABLE_GPU"] == "true"
    assert (tmp_path / "home" / ".openhands").is_dir()

    launcher.send_signal(signal.SIGINT)
    output, _ = launcher.communicate(timeout=STOP_DEADLINE_SECONDS)

    assert launcher.returncode == 0, output
    assert f"The server will be available at: http://localhost:{port}" in output
    assert STOPPED_TEXT in output
    assert not servers[0].is_running()
