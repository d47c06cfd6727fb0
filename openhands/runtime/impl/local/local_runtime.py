"""LocalRuntime: the action execution server as a host subprocess (runtime.md §13).

There is no sandbox: the agent's commands run on this machine as the current user. It is
meant for machines without Docker (and for fast tests); every start says so loudly.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar
from urllib.parse import urlparse

from openhands.core.config import OpenHandsConfig
from openhands.core.exceptions import AgentRuntimeDisconnectedError
from openhands.core.logger import openhands_logger as logger
from openhands.events.stream import EventStream
from openhands.runtime.base import Plugin, StatusCallback
from openhands.runtime.impl.action_execution.action_execution_client import (
    ActionExecutionClient,
)
from openhands.runtime.impl.local.server_process import (
    PROJECT_ROOT,
    ServerProcess,
    expected_key,
    launch_server,
    stop_server,
    wait_until_alive,
)
from openhands.runtime.impl.local.warm_servers import (
    DESIRED_ENV,
    INITIAL_ENV,
    count_from_env,
    warm_pool,
)
from openhands.runtime.runtime_status import RuntimeStatus

if TYPE_CHECKING:
    from openhands.llm.llm_registry import LLMRegistry


class LocalRuntime(ActionExecutionClient):
    # Servers by conversation id, so a reconnect with the same sid reuses its server.
    _servers: ClassVar[dict[str, ServerProcess]] = {}
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
        self._server: ServerProcess | None = None
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
    def setup(
        cls,
        config: OpenHandsConfig,
        headless_mode: bool = False,
        plugins: Sequence[Plugin] | None = None,
    ) -> None:
        """Check what the local server needs (skipped with SKIP_DEPENDENCY_CHECK=1), and
        start ``INITIAL_NUM_WARM_SERVERS`` warm servers in the background.

        ``plugins`` are those of the agent the next conversations run (the caller knows
        the agents; the runtime layer does not): warm servers are started with them, so
        without them ``INITIAL_NUM_WARM_SERVERS`` starts none (``DESIRED_NUM_WARM_SERVERS``
        still refills after each start, with that runtime's own plugins)."""
        if os.environ.get("SKIP_DEPENDENCY_CHECK") != "1":
            check_local_dependencies()
        initial = count_from_env(INITIAL_ENV)
        if initial and plugins is None:
            logger.info("INITIAL_NUM_WARM_SERVERS=%d ignored: no agent plugins given", initial)
        elif initial and plugins is not None:
            plugins = _with_vscode(plugins, headless_mode)
            host_env = dict(os.environ)
            warm_pool.fill(
                initial,
                config,
                plugins,
                expected_key(config, plugins, host_env),
                host_env,
                config.sandbox.local_runtime_url,
                os.environ.get("SESSION_API_KEY") or None,
            )

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

    def _claim_or_start_server(self) -> ServerProcess:
        """A warm server started with this runtime's settings, else a new one."""
        host_env = dict(os.environ)
        key = expected_key(self.config, self.plugins, host_env)
        server = warm_pool.pop(key)
        if server is not None:
            logger.info(
                "LocalRuntime %s: claimed the warm server on port %d", self.sid, server.port
            )
            return server
        if count_from_env(DESIRED_ENV):
            logger.info("LocalRuntime %s: no warm server ready, starting one", self.sid)
        return launch_server(self.config, self.plugins, self.sid, host_env)

    def _refill_warm_servers(self) -> None:
        desired = count_from_env(DESIRED_ENV)
        if not desired:
            return
        host_env = dict(os.environ)
        warm_pool.fill(
            desired,
            self.config,
            self.plugins,
            expected_key(self.config, self.plugins, host_env),
            host_env,
            self.config.sandbox.local_runtime_url,
            self.session_api_key,
        )

    async def connect(self) -> None:
        self.set_runtime_status(RuntimeStatus.STARTING_RUNTIME)
        with self._servers_lock:
            existing = self._servers.get(self.sid)
            if existing is not None and not existing.running:
                del self._servers[self.sid]
                existing = None
            if existing is None and self.attach_to_existing:
                raise AgentRuntimeDisconnectedError(f"No local runtime server for {self.sid}")
        if existing is None:
            # Outside the lock: claiming may wait for a warm server that is still starting.
            claimed = await asyncio.to_thread(self._claim_or_start_server)
            with self._servers_lock:
                existing = self._servers.setdefault(self.sid, claimed)
            if existing is not claimed:  # another runtime of this sid got there first
                await asyncio.to_thread(stop_server, claimed)
        self._server = existing
        self._vscode_port = existing.vscode_port
        self._app_ports = list(existing.app_ports)
        self.config.workspace_mount_path_in_sandbox = existing.workspace
        await asyncio.to_thread(self._wait_until_alive)
        if not self.attach_to_existing:
            await asyncio.to_thread(self.setup_initial_env)
        self._runtime_initialized = True
        self.set_runtime_status(RuntimeStatus.READY)
        self._refill_warm_servers()

    def _wait_until_alive(self) -> None:
        assert self._server is not None
        wait_until_alive(self._server, self.config.sandbox.local_runtime_url, self.session_api_key)

    def close(self) -> None:
        if self.closed:
            return
        super().close()
        if self.attach_to_existing or self.config.sandbox.keep_runtime_alive:
            return
        with self._servers_lock:
            server = self._servers.pop(self.sid, None)
        if server is not None:
            stop_server(server)

    @classmethod
    async def delete(cls, conversation_id: str) -> None:
        with cls._servers_lock:
            server = cls._servers.pop(conversation_id, None)
        if server is not None:
            await asyncio.to_thread(stop_server, server)

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


def _with_vscode(plugins: Sequence[Plugin], headless_mode: bool) -> list[Plugin]:
    """A UI conversation's runtime also asks for VS Code (as ``Runtime`` does)."""
    from openhands.runtime.base import _plugin_name

    chosen = list(plugins)
    if not headless_mode and not any(_plugin_name(p) == "vscode" for p in chosen):
        chosen.append("vscode")
    return chosen
