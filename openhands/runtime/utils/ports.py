"""Port allocation for sandboxes (runtime.md §12.3): bindable ports, optionally locked.

Locks are ``flock``-ed files under ``<tmpdir>/openhands_port_locks/`` so that several
processes on one machine never hand out the same port at the same time.
"""

from __future__ import annotations

import fcntl
import os
import random
import socket
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

LOCK_DIR_NAME = "openhands_port_locks"
STALE_LOCK_SECONDS = 300

EXECUTION_SERVER_PORT_RANGE = (30000, 39999)
VSCODE_PORT_RANGE = (40000, 49999)
APP_PORT_RANGE_1 = (50000, 54999)
APP_PORT_RANGE_2 = (55000, 59999)


def port_is_bindable(port: int, host: str = "0.0.0.0") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def find_available_port(port_range: tuple[int, int], tries: int = 50) -> int:
    """A random bindable port in the range (no lock)."""
    low, high = port_range
    for _ in range(tries):
        port = random.randint(low, high)
        if port_is_bindable(port):
            return port
    raise RuntimeError(f"No free port found in {low}-{high}")


@dataclass
class PortLock:
    port: int
    path: str
    handle: IO[str]

    def release(self) -> None:
        try:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
        finally:
            self.handle.close()
            try:
                os.unlink(self.path)
            except OSError:
                pass


def _lock_dir() -> str:
    path = os.path.join(tempfile.gettempdir(), LOCK_DIR_NAME)
    os.makedirs(path, exist_ok=True)
    return path


def _try_lock(port: int, timeout: float = 1.0) -> PortLock | None:
    path = os.path.join(_lock_dir(), f"port_{port}.lock")
    handle = open(path, "a+")  # noqa: SIM115 - kept open while the lock is held
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                handle.close()
                return None
            time.sleep(0.05)
    handle.seek(0)
    handle.truncate()
    handle.write(str(port))
    handle.flush()
    return PortLock(port, path, handle)


def find_and_lock_port(
    port_range: tuple[int, int],
    attempts: int = 5,
    in_use: Callable[[int], bool] | None = None,
) -> PortLock | None:
    """Lock a bindable port: two random tries, then sequential from a random start."""
    low, high = port_range
    span = high - low + 1
    start = random.randint(low, high)
    candidates = [random.randint(low, high) for _ in range(2)]
    candidates += [low + (start - low + i) % span for i in range(max(0, attempts - 2))]
    for port in candidates:
        lock = _try_lock(port)
        if lock is None:
            continue
        if port_is_bindable(port) and not (in_use and in_use(port)):
            return lock
        lock.release()
    return None


def clean_stale_locks(max_age: float = STALE_LOCK_SECONDS) -> None:
    directory = _lock_dir()
    now = time.time()
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        try:
            if now - os.path.getmtime(path) < max_age:
                continue
            with open(path, "a+") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                os.unlink(path)
        except OSError:
            continue
