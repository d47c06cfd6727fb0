"""DockerWarmPool: idle sandboxes started ahead, so a new conversation claims one at once.

The server builds one pool (``[sandbox] warm_pool_size``, env ``SANDBOX_WARM_POOL_SIZE``)
and hands it to the DockerRuntimes it creates. A pool sandbox is an ordinary sandbox
container made by ``SandboxSpec.run_kwargs`` from the server's own sandbox settings and
the default agent's plugins, named ``openhands-pool-<random>``, with a random pool key and
no user data, secret or conversation id. Its labels say which server owns it, which process
made it (so a later start can remove it) and its fingerprint.

Claiming (``claim``) takes one ready member whose fingerprint equals the conversation's,
under a lock, so no two conversations ever get the same one; replaces the pool key with a
fresh session key through the action server (the pool key stops working); renames the
container to the conversation's name; and lifts the low CPU weight it was started with.
The conversation's environment and secrets are exported afterwards by the runtime, as for
any new sandbox. A member is never returned to the pool: a conversation's sandbox belongs
to that conversation until it is deleted.

Refilling runs on one background thread at the lowest CPU priority, one sandbox at a time,
and pool containers start with the smallest CPU weight, so running conversations keep the
CPU while the pool boots. Members whose image or settings no longer match (fingerprint) or
whose container died are removed, never claimed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import docker
import httpx
from docker.errors import APIError, DockerException, NotFound

from openhands.runtime.impl.docker.container_spec import (
    SandboxPorts,
    SandboxSpec,
    allocate_ports,
)
from openhands.runtime.server.session_key import KEY_FILE_ENV
from openhands.runtime.utils.ports import PortLock

logger = logging.getLogger(__name__)

POOL_NAME_PREFIX = "openhands-pool-"
LABEL_OWNER = "openhands.sandbox.owner"
LABEL_POOL_PROCESS = "openhands.pool.process"
LABEL_FINGERPRINT = "openhands.pool.fingerprint"
# Inside the container: where the action server keeps the key a claim gave it.
SANDBOX_KEY_FILE = "/openhands/session_api_key"
# The CPU weight of an unclaimed member (Docker's default is 1024): booting pool sandboxes
# yield the CPU to running conversations.
POOL_CPU_SHARES = 2
DEFAULT_CPU_SHARES = 1024
READY_TIMEOUT_SECONDS = 120.0
READY_POLL_SECONDS = 0.2
# How often the refill thread looks again without being asked (dead members, a rebuilt
# image, a changed config).
REVIEW_SECONDS = 30.0
# After a failed creation, wait this long before the next try (doubling up to 10 min).
RETRY_SECONDS = 5.0
MAX_RETRY_SECONDS = 600.0


def process_identity() -> str:
    """``<host>/<pid>/<start ticks>``: this process, distinct from a later one that reuses
    the pid (the start time differs)."""
    return f"{socket.gethostname()}/{os.getpid()}/{_start_ticks(os.getpid())}"


def _start_ticks(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            # Field 22 (starttime); the command name (field 2) may hold spaces, so count
            # from its closing parenthesis.
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return "0"


def process_alive(identity: str) -> bool:
    """Whether the process a pool label names still runs. Another host's processes cannot
    be checked, so they count as alive (their server removes its pool itself)."""
    host, _, rest = identity.partition("/")
    pid_text, _, ticks = rest.partition("/")
    if host != socket.gethostname() or not pid_text.isdigit():
        return True
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return _start_ticks(pid) == ticks


@dataclass
class PoolMember:
    container_id: str
    name: str
    ports: SandboxPorts
    pool_key: str
    fingerprint: str
    port_locks: list[PortLock] = field(default_factory=list)

    def release_ports(self) -> None:
        for lock in self.port_locks:
            lock.release()
        self.port_locks = []


@dataclass(frozen=True)
class ClaimedSandbox:
    """A pool sandbox now belonging to one conversation."""

    container_id: str
    ports: SandboxPorts
    session_api_key: str


@dataclass
class PoolStats:
    hits: int = 0
    misses: int = 0
    created: int = 0
    discarded: int = 0


# What the pool fills itself with: the server's current spec and its fingerprint; called
# on the refill thread (it may build the runtime image).
SpecSource = Callable[[], tuple[SandboxSpec, str]]


class DockerWarmPool:
    def __init__(
        self,
        size: int,
        spec_source: SpecSource,
        server_url: Callable[[int], str],
        *,
        owner: str,
        client_factory: Callable[[], docker.DockerClient],
    ) -> None:
        self.size = size
        self._spec_source = spec_source
        self._server_url = server_url
        self._owner = owner
        self._client_factory = client_factory
        self._client: docker.DockerClient | None = None
        self.process = process_identity()
        self._members: list[PoolMember] = []
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        self._filled = threading.Condition(self._lock)
        self.stats = PoolStats()
        self._http = httpx.Client(timeout=10.0)
        self._engine_workers = ThreadPoolExecutor(1, thread_name_prefix="warm-pool-claim")

    @property
    def client(self) -> docker.DockerClient:
        if self._client is None:
            self._client = self._client_factory()
        return self._client

    # --- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        if self.size <= 0 or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="sandbox-warm-pool", daemon=True)
        self._thread.start()

    def close(self) -> int:
        """Stop refilling and remove every unclaimed member; returns how many."""
        self._closed.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=READY_TIMEOUT_SECONDS + 30)
        with self._lock:
            members, self._members = self._members, []
            self._filled.notify_all()
        for member in members:
            self._remove(member)
        self._http.close()
        self._engine_workers.shutdown(wait=False)
        if members:
            logger.info("Warm pool closed: removed %d idle sandbox(es)", len(members))
        return len(members)

    def refresh(self) -> None:
        """Look at the members and the settings again now (not at the next review)."""
        self._wake.set()

    def ready_count(self) -> int:
        with self._lock:
            return len(self._members)

    def wait_ready(self, count: int, timeout: float) -> bool:
        """Wait until ``count`` members are ready (tests and benchmarks)."""
        deadline = time.monotonic() + timeout
        with self._filled:
            while len(self._members) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._closed.is_set():
                    return False
                self._filled.wait(remaining)
        return True

    # --- claim ---------------------------------------------------------------------------

    def claim(self, fingerprint: str, name: str) -> ClaimedSandbox | None:
        """A ready member made for ``fingerprint``, now named ``name`` and holding a fresh
        session key; None (a miss) when there is none."""
        while True:
            with self._lock:
                member = next((m for m in self._members if m.fingerprint == fingerprint), None)
                if member is not None:
                    self._members.remove(member)
            self._wake.set()  # refill in the background
            if member is None:
                self.stats.misses += 1
                logger.info("Warm pool miss for %s (%d ready)", name, self.ready_count())
                return None
            claimed = self._hand_over(member, name)
            if claimed is not None:
                self.stats.hits += 1
                logger.info("Warm pool hit: %s is now %s", member.name, name)
                return claimed
            # That member was broken (removed): try the next one.

    def _hand_over(self, member: PoolMember, name: str) -> ClaimedSandbox | None:
        new_key = secrets.token_urlsafe(32)
        try:
            # The normal CPU weight first: the action server answers the key swap below, and
            # at the pool's weight a busy host starves it.
            self.client.api.update_container(member.container_id, cpu_shares=DEFAULT_CPU_SHARES)
        except DockerException as error:
            logger.warning("Warm pool sandbox %s could not be handed over: %s", member.name, error)
            self._remove(member)
            return None
        # The rename runs while the action server swaps its key (by id: no inspect first).
        engine = self._engine_workers.submit(self.client.api.rename, member.container_id, name)
        try:
            response = self._http.post(
                f"{self._server_url(member.ports.server)}/session_api_key",
                headers={"X-Session-API-Key": member.pool_key},
                json={"session_api_key": new_key},
            )
            response.raise_for_status()
            engine.result()
        except (httpx.HTTPError, DockerException) as error:
            with contextlib.suppress(Exception):
                engine.result()  # finished before the member is removed
            logger.warning("Warm pool sandbox %s could not be handed over: %s", member.name, error)
            self._remove(member)
            return None
        member.release_ports()
        return ClaimedSandbox(member.container_id, member.ports, new_key)

    # --- refill --------------------------------------------------------------------------

    def _run(self) -> None:
        with contextlib.suppress(OSError, AttributeError):
            # Lowest CPU priority for this thread (Linux: a thread has its own nice value).
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        backoff = RETRY_SECONDS
        while not self._closed.is_set():
            try:
                self._refill()
                backoff = RETRY_SECONDS
                self._wake.wait(REVIEW_SECONDS)
            except Exception as error:
                if self._closed.is_set():
                    return
                logger.warning("Warm pool refill failed (next try in %.0f s): %s", backoff, error)
                self._wake.wait(backoff)
                backoff = min(backoff * 2, MAX_RETRY_SECONDS)
            self._wake.clear()

    def _refill(self) -> None:
        spec, fingerprint = self._spec_source()
        self._drop_unusable(fingerprint)
        while not self._closed.is_set() and self.ready_count() < self.size:
            member = self._create(spec, fingerprint)
            with self._lock:
                if self._closed.is_set():
                    stale: PoolMember | None = member
                else:
                    self._members.append(member)
                    self._filled.notify_all()
                    stale = None
            if stale is not None:
                self._remove(stale)

    def _drop_unusable(self, fingerprint: str) -> None:
        """Remove members made for other settings or another image, or no longer running."""
        with self._lock:
            members = list(self._members)
        for member in members:
            reason = None
            if member.fingerprint != fingerprint:
                reason = "its image or sandbox settings changed"
            else:
                try:
                    if self.client.containers.get(member.container_id).status != "running":
                        reason = "its container is not running"
                except NotFound:
                    reason = "its container is gone"
            if reason is None:
                continue
            with self._lock:
                if member not in self._members:
                    continue  # claimed meanwhile
                self._members.remove(member)
            logger.info("Warm pool: discarding %s (%s)", member.name, reason)
            self.stats.discarded += 1
            self._remove(member)

    def _create(self, spec: SandboxSpec, fingerprint: str) -> PoolMember:
        name = f"{POOL_NAME_PREFIX}{secrets.token_hex(6)}"
        locks: list[PortLock] = []
        ports = allocate_ports(self.client, spec.config, locks)
        pool_key = secrets.token_urlsafe(32)
        labels = {
            LABEL_OWNER: self._owner,
            LABEL_POOL_PROCESS: self.process,
            LABEL_FINGERPRINT: fingerprint,
        }
        kwargs = spec.run_kwargs(
            name, ports, pool_key, labels=labels, extra_env={KEY_FILE_ENV: SANDBOX_KEY_FILE}
        )
        kwargs["cpu_shares"] = POOL_CPU_SHARES
        member = PoolMember("", name, ports, pool_key, fingerprint, locks)
        try:
            container = self.client.containers.run(**kwargs)
        except (APIError, DockerException):
            member.release_ports()
            raise
        member.container_id = container.id or ""
        try:
            self._wait_ready(member)
        except BaseException:
            self._remove(member)
            raise
        self.stats.created += 1
        logger.info("Warm pool: %s ready (%d/%d)", name, self.ready_count() + 1, self.size)
        return member

    def _wait_ready(self, member: PoolMember) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        url = f"{self._server_url(member.ports.server)}/alive"
        while not self._closed.is_set():
            with contextlib.suppress(httpx.HTTPError, ValueError):
                response = self._http.get(url, timeout=2)
                if response.status_code == 200 and response.json().get("status") == "ok":
                    return
            container = self.client.containers.get(member.container_id)
            if container.status == "exited":
                raise RuntimeError(f"{member.name} exited while starting")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{member.name} did not become ready")
            time.sleep(READY_POLL_SECONDS)
        raise RuntimeError("the pool closed")

    def _remove(self, member: PoolMember) -> None:
        member.release_ports()
        target = member.container_id or member.name
        try:
            self.client.containers.get(target).remove(force=True, v=True)
        except NotFound:
            pass
        except DockerException as error:
            logger.warning("Could not remove warm pool sandbox %s: %s", member.name, error)
