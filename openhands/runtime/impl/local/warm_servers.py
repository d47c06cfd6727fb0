"""Warm action servers for LocalRuntime: started ahead, claimed by the next runtime.

The reference's environment variables, read when they apply (not cached):

- ``DESIRED_NUM_WARM_SERVERS`` (default 0): after a LocalRuntime has connected, servers
  are started in the background until that many are idle or starting;
- ``INITIAL_NUM_WARM_SERVERS`` (default 0): ``LocalRuntime.setup`` starts that many.

A LocalRuntime that needs a server of its own pops the oldest idle one started with the
same settings (command line and environment, see ``server_process.expected_key``); a
server started with other settings is stopped, never handed out. Each warm server has a
fresh temporary workspace nothing ran in, which becomes its conversation's workspace. A
popped server is the runtime's alone: it is never put back. Whatever is still idle or
starting when the process exits is stopped.

Unlike the reference, warm servers are started in background threads (a runtime that
finds one still starting waits for it rather than starting another), and deleting the last
conversation leaves the pool as it is: the next conversation should start warm too.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from collections.abc import Mapping, Sequence

from openhands.core.config import OpenHandsConfig
from openhands.core.logger import openhands_logger as logger
from openhands.runtime.base import Plugin
from openhands.runtime.impl.local.server_process import (
    READY_TIMEOUT_SECONDS,
    ServerProcess,
    launch_server,
    stop_server,
    wait_until_alive,
)

DESIRED_ENV = "DESIRED_NUM_WARM_SERVERS"
INITIAL_ENV = "INITIAL_NUM_WARM_SERVERS"


def count_from_env(name: str) -> int:
    """A non-negative count from the environment; unset, empty or invalid is 0 (logged)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return 0
    try:
        value = int(raw)
    except ValueError:
        logger.warning("%s=%r is not a whole number; no warm servers", name, raw)
        return 0
    if value < 0:
        logger.warning("%s=%d is negative; no warm servers", name, value)
        return 0
    return value


def _workspace_untouched(server: ServerProcess) -> bool:
    """A temporary workspace must still be there and empty to be handed out as fresh."""
    if not server.temp_workspace:
        return True
    try:
        return not os.listdir(server.workspace)
    except OSError:
        return False


class WarmServerPool:
    """Idle servers by start order, and those still starting, per settings key."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._idle: list[ServerProcess] = []
        self._starting: dict[str, int] = {}
        self._launched: list[ServerProcess] = []  # started, not yet alive
        self._closed = False

    # --- what the runtime calls ----------------------------------------------------------

    def pop(self, key: str, timeout: float = READY_TIMEOUT_SECONDS) -> ServerProcess | None:
        """The oldest idle server with ``key``; waits for one of that key still starting.

        None when there is none (or the pool is closed)."""
        deadline = time.monotonic() + timeout
        discarded: list[ServerProcess] = []
        with self._changed:
            while True:
                found = self._take_idle(key, discarded)
                if found is not None or self._closed or not self._starting.get(key):
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._changed.wait(remaining)
        for server in discarded:
            stop_server(server)
        return found

    def fill(
        self,
        desired: int,
        config: OpenHandsConfig,
        plugins: Sequence[Plugin],
        key: str,
        host_env: Mapping[str, str],
        base_url: str,
        session_api_key: str | None,
    ) -> int:
        """Start servers in the background until ``desired`` with ``key`` are idle or
        starting; idle servers of other settings are stopped. How many were started."""
        stale: list[ServerProcess] = []
        with self._changed:
            if self._closed:
                return 0
            stale = [s for s in self._idle if s.key != key or not s.running]
            self._idle = [s for s in self._idle if s not in stale]
            have = sum(1 for s in self._idle if s.key == key) + self._starting.get(key, 0)
            missing = max(0, desired - have)
            if missing:
                self._starting[key] = self._starting.get(key, 0) + missing
        for server in stale:
            stop_server(server)
        for _ in range(missing):
            threading.Thread(
                target=self._start_one,
                args=(config.model_copy(deep=True), list(plugins), key, dict(host_env)),
                kwargs={"base_url": base_url, "session_api_key": session_api_key},
                name="openhands-warm-server",
                daemon=True,
            ).start()
        if missing:
            logger.info("Starting %d warm local server(s) (%s=%d)", missing, DESIRED_ENV, desired)
        return missing

    def idle_count(self, key: str | None = None) -> int:
        with self._changed:
            return sum(1 for s in self._idle if key is None or s.key == key)

    def starting_count(self) -> int:
        with self._changed:
            return sum(self._starting.values())

    def wait_settled(self, timeout: float) -> bool:
        """Wait until no server is starting any more; False when ``timeout`` passed first."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while any(self._starting.values()):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._changed.wait(remaining)
        return True

    def stop_all(self) -> None:
        """Stop every idle and starting server; later fills start nothing."""
        with self._changed:
            self._closed = True
            servers = self._idle + self._launched
            self._idle, self._launched = [], []
            self._changed.notify_all()
        for server in servers:
            stop_server(server)
        if servers:
            logger.info("Stopped %d warm local server(s)", len(servers))

    def reopen(self) -> None:
        """Accept fills again after :meth:`stop_all` (tests run many pools' worth)."""
        with self._changed:
            self._closed = False

    # --- inside ------------------------------------------------------------------------------

    def _take_idle(self, key: str, discarded: list[ServerProcess]) -> ServerProcess | None:
        for server in list(self._idle):
            if server.key != key:
                continue
            self._idle.remove(server)
            if server.running and _workspace_untouched(server):
                return server
            discarded.append(server)
        return None

    def _start_one(
        self,
        config: OpenHandsConfig,
        plugins: list[Plugin],
        key: str,
        host_env: dict[str, str],
        *,
        base_url: str,
        session_api_key: str | None,
    ) -> None:
        server: ServerProcess | None = None
        ready = False
        try:
            with self._changed:
                if self._closed:
                    return
                server = launch_server(config, plugins, "warm", host_env)
                self._launched.append(server)
            wait_until_alive(server, base_url, session_api_key)
            ready = True
        except Exception as error:
            logger.warning("A warm local server failed to start: %s", error)
        finally:
            with self._changed:
                self._starting[key] = max(0, self._starting.get(key, 0) - 1)
                # Not in _launched any more: stop_all took it and stops it.
                ours = server is not None and server in self._launched
                if ours:
                    assert server is not None
                    self._launched.remove(server)
                added = ours and ready and not self._closed
                if added:
                    assert server is not None
                    self._idle.append(server)
                    logger.info("Warm local server ready on port %d", server.port)
                self._changed.notify_all()
            if ours and not added:
                assert server is not None
                stop_server(server)


warm_pool = WarmServerPool()
atexit.register(warm_pool.stop_all)
