"""LocalRuntime: the action execution server as a host subprocess (runtime.md §13).

There is no sandbox: the agent's commands run on this machine as the current user. It is
meant for machines without Docker (and for fast tests); every start says so loudly.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar
from urllib.parse import urlparse

import httpx

from openhands.core.config import OpenHandsConfig
from openhands.core.exceptions import AgentRuntimeDisconnectedError, AgentRuntimeError
from openhands.core.logger import openhands_logger as logger
from openhands.events.stream import EventStream
from openhands.runtime.base import Plugin, StatusCallback
from openhands.runtime.impl.action_execution.action_execution_client import (
    ActionExecutionClient,
)
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.runtime.server.options import tmux_socket_name
from openhands.runtime.utils.command import get_action_execution_server_startup_command
from openhands.runtime.utils.ports import (
    APP_PORT_RANGE_1,
    APP_PORT_RANGE_2,
    EXECUTION_SERVER_PORT_RANGE,
    VSCODE_PORT_RANGE,
    find_available_port,
)

if TYPE_CHECKING:
    from openhands.llm.llm_registry import LLMRegistry

SERVER_MODULE = "openhands.runtime.action_execution_server"
PROJECT_ROOT = Path(__file__).resolve().parents[4]
READY_TIMEOUT_SECONDS = 120


@dataclass
class _ServerProcess:
    process: subprocess.Popen[str]
    port: int
    vscode_port: int
    app_ports: tuple[int, int]
    workspace: str
    temp_workspace: bool
    log_thread: threading.Thread


def _forward_output(process: subprocess.Popen[str], sid: str) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        logger.debug("server[%s]: %s", sid, line.rstrip())


class LocalRuntime(ActionExecutionClient):
    # Servers by conversation id, so a reconnect with the same sid reuses its server.
    _servers: ClassVar[dict[str, _ServerProcess]] = {}
    _servers_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(
        self,
        config: OpenHandsConfig,
        event_stream: EventStream,
        llm_registry: LLMRegistry | None = None,
        sid: str = "default",
        plugins: Sequence[Plugin] | None = None,
        env_vars: dict[str, str] | None = None,
        status_callback: StatusCallback | None = None,
        attach_to_existing: bool = False,
        # Unlike Runtime's default: no VSCode plugin unless the caller asks for a UI session.
        headless_mode: bool = True,
        user_id: str | None = None,
        git_provider_tokens: dict[str, str] | None = None,
    ) -> None:
        super().__init__(
            config,
            event_stream,
            llm_registry=llm_registry,
            sid=sid,
            plugins=plugins,
            env_vars=env_vars,
            status_callback=status_callback,
            attach_to_existing=attach_to_existing,
            headless_mode=headless_mode,
            user_id=user_id,
            git_provider_tokens=git_provider_tokens,
        )
        self.session_api_key = os.environ.get("SESSION_API_KEY") or None
        self._server: _ServerProcess | None = None
        # Copied from the server process once connected; what the URL properties read.
        self._vscode_port: int | None = None
        self._app_ports: list[int] = []
        for key, value in self.config.sandbox.runtime_startup_env_vars.items():
            os.environ[key] = value
        logger.warning(
            "LocalRuntime: the agent's commands run directly on this machine as user %s, "
            "with no sandbox or isolation. Use the Docker runtime for untrusted tasks.",
            getpass.getuser(),
        )

    @classmethod
    def setup(cls, config: OpenHandsConfig, headless_mode: bool = False) -> None:
        """Check what the local server needs (skipped with SKIP_DEPENDENCY_CHECK=1)."""
        if os.environ.get("SKIP_DEPENDENCY_CHECK") == "1":
            return
        check_local_dependencies()

    # --- server process ----------------------------------------------------------------

    @property
    def action_execution_server_url(self) -> str:
        if self._server is None:
            raise AgentRuntimeDisconnectedError("LocalRuntime is not connected")
        return f"{self.config.sandbox.local_runtime_url}:{self._server.port}"

    def _sandbox_problem(self) -> str | None:
        server = self._server
        if server is None or server.process.poll() is None:
            return None
        return f"The local action execution server exited with code {server.process.returncode}"

    def _start_server(self) -> _ServerProcess:
        workspace = self.config.workspace_base
        temp_workspace = workspace is None
        if workspace is None:
            workspace = tempfile.mkdtemp(prefix=f"openhands_workspace_{self.sid}_")
        os.makedirs(workspace, exist_ok=True)
        port = find_available_port(EXECUTION_SERVER_PORT_RANGE)
        vscode_port = int(os.environ.get("VSCODE_PORT") or find_available_port(VSCODE_PORT_RANGE))
        app_ports = (
            int(
                os.environ.get("WORK_PORT_1")
                or os.environ.get("APP_PORT_1")
                or find_available_port(APP_PORT_RANGE_1)
            ),
            int(
                os.environ.get("WORK_PORT_2")
                or os.environ.get("APP_PORT_2")
                or find_available_port(APP_PORT_RANGE_2)
            ),
        )
        # The server's working dir is the host workspace; it runs as this process's user.
        server_config = self.config.model_copy(
            update={"workspace_mount_path_in_sandbox": workspace}
        )
        command = get_action_execution_server_startup_command(
            port,
            self.plugins,
            server_config,
            override_user_id=os.getuid(),
            override_username=getpass.getuser(),
            main_module=SERVER_MODULE,
            python_executable=sys.executable,
        )
        env = dict(os.environ)
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
                "VSCODE_PORT": str(vscode_port),
                "APP_PORT_1": str(app_ports[0]),
                "APP_PORT_2": str(app_ports[1]),
                "PATH": os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", ""),
            }
        )
        process = subprocess.Popen(
            command,
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        log_thread = threading.Thread(target=_forward_output, args=(process, self.sid), daemon=True)
        log_thread.start()
        return _ServerProcess(
            process, port, vscode_port, app_ports, workspace, temp_workspace, log_thread
        )

    async def connect(self) -> None:
        self.set_runtime_status(RuntimeStatus.STARTING_RUNTIME)
        with self._servers_lock:
            existing = self._servers.get(self.sid)
            if existing is not None and existing.process.poll() is not None:
                del self._servers[self.sid]
                existing = None
            if existing is None and self.attach_to_existing:
                raise AgentRuntimeDisconnectedError(f"No local runtime server for {self.sid}")
            if existing is None:
                existing = self._start_server()
                self._servers[self.sid] = existing
        self._server = existing
        self._vscode_port = existing.vscode_port
        self._app_ports = list(existing.app_ports)
        self.config.workspace_mount_path_in_sandbox = existing.workspace
        await asyncio.to_thread(self._wait_until_alive)
        if not self.attach_to_existing:
            await asyncio.to_thread(self.setup_initial_env)
        self._runtime_initialized = True
        self.set_runtime_status(RuntimeStatus.READY)

    def _wait_until_alive(self) -> None:
        assert self._server is not None
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            if self._server.process.poll() is not None:
                raise AgentRuntimeDisconnectedError(
                    f"The local action execution server exited with code "
                    f"{self._server.process.returncode}"
                )
            try:
                self.check_if_alive()
                return
            except (httpx.HTTPError, AgentRuntimeError) as e:
                last_error = e
            time.sleep(0.2)
        raise AgentRuntimeError(f"The local action execution server did not start: {last_error}")

    def close(self) -> None:
        if self.closed:
            return
        super().close()
        if self.attach_to_existing or self.config.sandbox.keep_runtime_alive:
            return
        with self._servers_lock:
            server = self._servers.pop(self.sid, None)
        if server is not None:
            _stop(server)

    @classmethod
    async def delete(cls, conversation_id: str) -> None:
        with cls._servers_lock:
            server = cls._servers.pop(conversation_id, None)
        if server is not None:
            await asyncio.to_thread(_stop, server)

    # --- what the UI shows ---------------------------------------------------------------

    @property
    def runtime_url(self) -> str:
        """Where users reach this machine: ``$RUNTIME_URL``, else ``$RUNTIME_URL_PATTERN``
        with ``{runtime_id}`` = ``$RUNTIME_ID``, else ``sandbox.local_runtime_url``."""
        explicit = os.environ.get("RUNTIME_URL")
        if explicit:
            return explicit
        pattern = os.environ.get("RUNTIME_URL_PATTERN")
        runtime_id = os.environ.get("RUNTIME_ID")
        if pattern and runtime_id:
            return pattern.format(runtime_id=runtime_id)
        return self.config.sandbox.local_runtime_url

    def _create_url(self, prefix: str, port: int) -> str:
        """The public URL of a service on ``port`` (VS Code, an app port).

        On localhost it is ``<runtime_url>:<port>``. Behind a proxy the service gets a
        path of its own (``/<RUNTIME_ID>/<prefix>``) when the runtime URL already routes by
        runtime id, else a subdomain (``<prefix>-<host>``). Unlike 0.59, an app port's
        localhost URL carries that app's port, not VS Code's (runtime.md §13 quirk).
        """
        base = self.runtime_url
        if "localhost" in base:
            return f"{base}:{port}"
        runtime_id = os.environ.get("RUNTIME_ID")
        parsed = urlparse(base)
        path = parsed.path or "/"
        if runtime_id and path.startswith(f"/{runtime_id}"):
            return f"{parsed.scheme}://{parsed.netloc}/{runtime_id}/{prefix}"
        return f"{parsed.scheme}://{prefix}-{parsed.netloc}"

    @property
    def vscode_url(self) -> str | None:
        token = self.get_vscode_token()
        if not token or self._vscode_port is None:
            return None
        url = self._create_url("vscode", self._vscode_port)
        return f"{url}/?tkn={token}&folder={self.config.workspace_mount_path_in_sandbox}"

    @property
    def web_hosts(self) -> dict[str, int]:
        return {
            self._create_url(f"work-{index}", port): port
            for index, port in enumerate(self._app_ports, start=1)
        }

    @property
    def helper_scripts_dir(self) -> str:
        return str(PROJECT_ROOT / "openhands" / "runtime" / "utils")


def check_local_dependencies() -> None:
    """The IPython kernel packages and a working tmux, or a RuntimeError saying what is missing."""
    kernel = subprocess.run(
        [sys.executable, "-c", "import ipykernel, jupyter_client"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if kernel.returncode != 0:
        raise RuntimeError(
            "LocalRuntime needs ipykernel and jupyter_client in this Python environment: "
            + kernel.stderr.strip().splitlines()[-1]
        )
    if shutil.which("tmux") is None:
        raise RuntimeError("LocalRuntime needs tmux (e.g. `apt-get install tmux`)")
    socket_name = f"openhands-check-{os.getpid()}"
    probe = subprocess.run(
        ["tmux", "-L", socket_name, "new-session", "-d", "-s", "check", "echo test"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    subprocess.run(["tmux", "-L", socket_name, "kill-server"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        raise RuntimeError(f"tmux does not work here: {probe.stderr.strip()}")


def _stop(server: _ServerProcess) -> None:
    if server.process.poll() is None:
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
