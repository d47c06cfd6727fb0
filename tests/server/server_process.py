"""A real OpenHands server process for the conformance suite and the server benchmark.

``ServerProcess`` writes a ``config.toml`` into its own directory, starts
``python -m uvicorn openhands.server.listen:app`` there on a free 127.0.0.1 port (so the
server's config, file store and workspace all live in that directory) and waits for
``GET /alive``. The process runs in its own process group: ``kill()`` sends SIGKILL to the
server alone (a crash), ``stop()`` ends it gracefully, and both then reap whatever the
server left behind in its group (local action-execution servers).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import httpx

from openhands.core.config import OpenHandsConfig
from openhands.server.server_config import ServerConfig

REPO_ROOT = Path(__file__).resolve().parents[2]
JWT_SECRET = "conformance-jwt-secret-of-at-least-32-bytes"
_SERVER_ENV = {name.upper() for name in OpenHandsConfig.model_fields} | {
    *(name.upper() for name in ServerConfig.model_fields),
    "SESSION_API_KEY",
    "PERMITTED_CORS_ORIGINS",
    "GITHUB_APP_CLIENT_ID",
    "OPENHANDS_USER_AUTH",
    "CONVERSATION_MANAGER_CLASS",
    "OPENHANDS_CONFIG_CLS",
    "REDIS_HOST",
    "REDIS_PASSWORD",
}


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


class PortTaken(RuntimeError):
    """The chosen port was taken between probing it and the server binding it."""


def config_toml(
    root: Path,
    *,
    runtime: str = "local",
    max_concurrent_conversations: int = 3,
    max_iterations: int = 1000,
    extra_core: str = "",
) -> str:
    """The server's config: store and workspace under ``root``, a quiet CodeActAgent.

    The iteration cap is high because the shared ``live`` conversation serves many tests: how
    many agent steps their messages take depends on how the messages batch up, and reaching
    the cap ends the conversation in ERROR (agent.md §9, items 23–24)."""
    return f"""
[core]
runtime = "{runtime}"
file_store = "local"
file_store_path = "{root / "store"}"
workspace_base = "{root / "workspace"}"
jwt_secret = "{JWT_SECRET}"
max_concurrent_conversations = {max_concurrent_conversations}
max_iterations = {max_iterations}
enable_browser = false
{extra_core}

[llm]
num_retries = 0
native_tool_calling = true

[agent]
enable_browsing = false
enable_jupyter = false
enable_plan_mode = false
enable_mcp = false
"""


class ServerProcess:
    def __init__(
        self,
        root: Path,
        *,
        env: Mapping[str, str] | None = None,
        config: str | None = None,
        port: int | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self.root = root
        self.host = host  # the bind address; ``url`` always goes through 127.0.0.1
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "workspace").mkdir(exist_ok=True)
        self._port_chosen_here = port is None
        self.port = port or free_port(host)
        self.extra_env = dict(env or {})
        (self.root / "config.toml").write_text(config or config_toml(root))
        self.log_path = self.root / "server.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.started_in: float | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def store(self) -> Path:
        return self.root / "store"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def environment(self) -> dict[str, str]:
        # A developer's own LLM, agent, core-config and server settings must not leak in
        # (the environment wins over config.toml).
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("LLM_", "AGENT_")) and key not in _SERVER_ENV
        }
        env.update(
            {
                "PYTHONPATH": str(REPO_ROOT),
                "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                "SERVE_FRONTEND": "false",
                "RATE_LIMIT_ENABLED": "false",
                "SKIP_DEPENDENCY_CHECK": "1",
                "LOG_LEVEL": "INFO",
                # The server's own address for the agent's MCP config (`mcp_host`).
                "port": str(self.port),
            }
        )
        env.update(self.extra_env)
        return env

    def start(self, timeout: float = 60.0) -> ServerProcess:
        """Start the process and wait until ``/alive`` answers 200.

        A port this object chose itself can be taken by another process (a sandbox's
        published port, an outgoing connection) between the probe and uvicorn's bind; the
        start is then retried on a fresh port rather than failing the test."""
        for attempt in range(3):
            try:
                return self._start_once(timeout)
            except PortTaken:
                if not self._port_chosen_here or attempt == 2:
                    raise
                self.process = None
                self.port = free_port(self.host)
        raise AssertionError("unreachable")

    def _start_once(self, timeout: float) -> ServerProcess:
        assert self.process is None, "already started"
        log_start = self.log_path.stat().st_size if self.log_path.exists() else 0
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child owns it from here
        started = time.perf_counter()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "openhands.server.listen:app",
                "--host",
                self.host,
                "--port",
                str(self.port),
            ],
            cwd=self.root,
            env=self.environment(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        try:
            self.wait_alive(timeout)
        except RuntimeError:
            with open(self.log_path, "rb") as written:
                written.seek(log_start)
                if b"address already in use" in written.read():
                    raise PortTaken(
                        f"port {self.port} was taken before the server bound it:\n{self.log_tail()}"
                    ) from None
            raise
        self.started_in = time.perf_counter() - started
        return self

    def wait_alive(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=2.0) as client:
            while True:
                if self.process is not None and self.process.poll() is not None:
                    raise RuntimeError(f"the server exited early:\n{self.log_tail()}")
                with contextlib.suppress(httpx.HTTPError):
                    if client.get(f"{self.url}/alive").status_code == 200:
                        return
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no /alive within {timeout}s:\n{self.log_tail()}")
                time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL the server alone (a crash), then reap its leftover children."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        self.process.wait(10)
        self._reap_group()
        self.process = None

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM (uvicorn shuts down gracefully), SIGKILL after ``timeout``."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self._reap_group()
        self.process = None

    def _reap_group(self) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)

    def log_tail(self, lines: int = 60, *, access: bool = True) -> str:
        """The last ``lines`` lines of the server's log; ``access=False`` leaves out
        uvicorn's one-line-per-request access log (a polling test fills the tail with it)."""
        try:
            text = self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""
        kept = text.splitlines()
        if not access:
            kept = [line for line in kept if not line.startswith("INFO:     127.0.0.1:")]
        return "\n".join(kept[-lines:])

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
