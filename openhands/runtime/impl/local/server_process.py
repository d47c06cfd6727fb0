"""One local action execution server process: starting it, waiting for it, stopping it.

LocalRuntime starts one per conversation, and the warm pool (warm_servers.py) starts them
ahead of any conversation; both go through :func:`launch_server` so a warm server is
exactly the server the runtime would have started itself.
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from openhands.core.config import OpenHandsConfig
from openhands.core.exceptions import AgentRuntimeDisconnectedError, AgentRuntimeError
from openhands.core.logger import openhands_logger as logger
from openhands.runtime.base import Plugin
from openhands.runtime.server.options import tmux_socket_name
from openhands.runtime.utils.command import get_action_execution_server_startup_command
from openhands.runtime.utils.ports import (
    APP_PORT_RANGE_1,
    APP_PORT_RANGE_2,
    EXECUTION_SERVER_PORT_RANGE,
    VSCODE_PORT_RANGE,
    find_available_port,
)

SERVER_MODULE = "openhands.runtime.action_execution_server"
PROJECT_ROOT = Path(__file__).resolve().parents[4]
READY_TIMEOUT_SECONDS = 120
_POLL_SECONDS = 0.1
# Set per server by launch_server: not part of what makes two servers interchangeable.
_PER_SERVER_ENV = ("VSCODE_PORT", "APP_PORT_1", "APP_PORT_2")


@dataclass
class ServerProcess:
    process: subprocess.Popen[str]
    port: int
    vscode_port: int
    app_ports: tuple[int, int]
    workspace: str
    temp_workspace: bool
    log_thread: threading.Thread
    # What the server was started with (see server_key); a warm server is only handed to
    # a runtime that would have started it with the same.
    key: str

    @property
    def running(self) -> bool:
        return self.process.poll() is None


def _forward_output(process: subprocess.Popen[str], label: str) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        logger.debug("server[%s]: %s", label, line.rstrip())


def server_key(command: Sequence[str], env: Mapping[str, str]) -> str:
    """A digest of a command line and environment (its per-server ports left out)."""
    digest = hashlib.sha256()
    for arg in command:
        digest.update(arg.encode() + b"\0")
    digest.update(b"\1")
    for name in sorted(env):
        if name not in _PER_SERVER_ENV:
            digest.update(f"{name}={env[name]}".encode() + b"\0")
    return digest.hexdigest()


def _port(env: Mapping[str, str], names: Sequence[str], port_range: tuple[int, int]) -> int:
    for name in names:
        if env.get(name):
            return int(env[name])
    return find_available_port(port_range)


def server_environment(base: Mapping[str, str]) -> dict[str, str]:
    """The environment a server gets from ``base`` (the host's), before its ports."""
    env = dict(base)
    # No sandbox user here: bash runs as this process's user, with its environment
    # (runtime.md §13), unless the caller asks for `su` explicitly.
    env.setdefault("SU_TO_USER", "false")
    env.update(
        {
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(PROJECT_ROOT), env.get("PYTHONPATH", "")) if p
            ),
            "OPENHANDS_REPO_PATH": str(PROJECT_ROOT),
            "LOCAL_RUNTIME_MODE": "1",
            "PATH": os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", ""),
        }
    )
    return env


def startup_command(config: OpenHandsConfig, plugins: Sequence[Plugin], port: int) -> list[str]:
    return get_action_execution_server_startup_command(
        port,
        plugins,
        config,
        override_user_id=os.getuid(),
        override_username=getpass.getuser(),
        main_module=SERVER_MODULE,
        python_executable=sys.executable,
    )


def expected_key(
    config: OpenHandsConfig, plugins: Sequence[Plugin], host_env: Mapping[str, str]
) -> str:
    """The key of the server :func:`launch_server` would start now for these settings: two
    servers with the same key differ only in their ports and temporary workspace."""
    env = server_environment(host_env)
    workspace = config.workspace_base or "<temporary>"
    server_config = config.model_copy(update={"workspace_mount_path_in_sandbox": workspace})
    # Port 0 and a placeholder directory: what differs between interchangeable servers.
    return server_key(startup_command(server_config, plugins, 0), env)


def launch_server(
    config: OpenHandsConfig,
    plugins: Sequence[Plugin],
    label: str,
    host_env: Mapping[str, str],
) -> ServerProcess:
    """Start a server (without waiting for it) in ``config.workspace_base``, or in a new
    temporary directory of its own named after ``label`` when that is unset."""
    workspace = config.workspace_base
    temp_workspace = workspace is None
    if workspace is None:
        workspace = tempfile.mkdtemp(prefix=f"openhands_workspace_{label}_")
    os.makedirs(workspace, exist_ok=True)
    env = server_environment(host_env)
    port = find_available_port(EXECUTION_SERVER_PORT_RANGE)
    vscode_port = _port(env, ("VSCODE_PORT",), VSCODE_PORT_RANGE)
    app_ports = (
        _port(env, ("WORK_PORT_1", "APP_PORT_1"), APP_PORT_RANGE_1),
        _port(env, ("WORK_PORT_2", "APP_PORT_2"), APP_PORT_RANGE_2),
    )
    key = expected_key(config, plugins, host_env)
    # The server's working dir is the host workspace; it runs as this process's user.
    server_config = config.model_copy(update={"workspace_mount_path_in_sandbox": workspace})
    command = startup_command(server_config, plugins, port)
    env.update(
        {
            "VSCODE_PORT": str(vscode_port),
            "APP_PORT_1": str(app_ports[0]),
            "APP_PORT_2": str(app_ports[1]),
        }
    )
    process = subprocess.Popen(
        command,
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    log_thread = threading.Thread(target=_forward_output, args=(process, label), daemon=True)
    log_thread.start()
    return ServerProcess(
        process, port, vscode_port, app_ports, workspace, temp_workspace, log_thread, key
    )


def wait_until_alive(
    server: ServerProcess,
    base_url: str,
    session_api_key: str | None,
    timeout: float = READY_TIMEOUT_SECONDS,
) -> None:
    """Poll the server's ``/alive`` until it reports ``ok``; raises when the process exits
    or ``timeout`` passes first."""
    headers = {"X-Session-API-Key": session_api_key} if session_api_key else {}
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    with httpx.Client(timeout=5, headers=headers) as client:
        while time.monotonic() < deadline:
            if not server.running:
                raise AgentRuntimeDisconnectedError(
                    "The local action execution server exited with code "
                    f"{server.process.returncode}"
                )
            try:
                response = client.get(f"{base_url}:{server.port}/alive")
                response.raise_for_status()
                if response.json().get("status") == "ok":
                    return
                last_error = AgentRuntimeError("action execution server not initialised yet")
            except (httpx.HTTPError, ValueError) as error:
                last_error = error
            time.sleep(_POLL_SECONDS)
    raise AgentRuntimeError(f"The local action execution server did not start: {last_error}")


def stop_server(server: ServerProcess) -> None:
    """End the server, whatever its tmux sessions still run, and its temporary workspace."""
    if server.running:
        server.process.terminate()
        try:
            server.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(timeout=5)
    # A server that stopped cleanly has closed its tmux sessions (and so its tmux server);
    # one that crashed or was killed left them running, with whatever ran in them.
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        subprocess.run(
            ["tmux", "-L", tmux_socket_name(server.port), "kill-server"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=30,
        )
    if server.temp_workspace:
        shutil.rmtree(server.workspace, ignore_errors=True)
