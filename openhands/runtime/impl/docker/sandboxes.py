"""DockerSandboxes: what the server does with Docker sandboxes beyond one conversation.

Built once by the server (``for_server``) when its runtime is ``docker`` and handed to
every DockerRuntime it creates. It holds

- the owner label: every sandbox the server creates carries ``openhands.sandbox.owner``,
  a hash of the server's conversation store location, so start-up clean-up only ever
  touches this server's sandboxes (never those of tests, the CLI or another server);
- the warm pool (``warm_pool.py``), when ``[sandbox] warm_pool_size`` > 0;
- start-up clean-up (``sweep``): pool sandboxes of earlier processes and sandboxes whose
  conversation is gone are removed, running sandboxes of stored conversations are stopped
  (kept for a fast resume until their conversation is deleted);
- deletes: ``delete(sid)`` removes a conversation's sandbox and its anonymous volumes, and
  remembers the id, so a start still in flight for it removes what it creates instead of
  leaving it behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import docker
from docker.errors import DockerException, NotFound
from docker.models.containers import Container

from openhands.core.config import OpenHandsConfig
from openhands.runtime.impl.docker.container_spec import SandboxSpec, host_cpus
from openhands.runtime.impl.docker.vscode_variant import VSCODE_VARIANT
from openhands.runtime.impl.docker.warm_pool import (
    LABEL_OWNER,
    LABEL_POOL_PROCESS,
    POOL_NAME_PREFIX,
    DockerWarmPool,
    process_alive,
    process_identity,
)

logger = logging.getLogger(__name__)

# Stopping sandboxes at start-up runs on a few threads (each stop may take seconds).
SWEEP_WORKERS = 4


@dataclass
class SweepReport:
    pool_removed: int = 0
    orphans_removed: int = 0
    stopped: int = 0

    def __str__(self) -> str:
        return (
            f"removed {self.pool_removed} warm-pool sandbox(es) of earlier processes, "
            f"removed {self.orphans_removed} sandbox(es) of deleted conversations, "
            f"stopped {self.stopped} sandbox(es) of stored conversations"
        )


def owner_id(config: OpenHandsConfig) -> str:
    """Who a sandbox belongs to: the server's conversation store (a restarted server with
    the same store owns the same sandboxes). An in-memory store lives as long as its
    process, so then the process is the owner."""
    place = os.path.abspath(os.path.expanduser(config.file_store_path or ""))
    key = f"{config.file_store}:{place}"
    if config.file_store == "memory":
        key += f":{process_identity()}"
    return hashlib.sha256(key.encode()).hexdigest()[:24]


def pool_knobs(config: OpenHandsConfig) -> dict[str, str]:
    """The server knobs a new runtime of this server would put in the container."""
    prefix = "SANDBOX_ENV_"
    knobs = {k[len(prefix) :]: v for k, v in os.environ.items() if k.startswith(prefix)}
    if config.sandbox.enable_auto_lint:
        knobs["ENABLE_AUTO_LINT"] = "true"
    return knobs


class DockerSandboxes:
    def __init__(
        self,
        config: OpenHandsConfig,
        owner: str,
        client_factory: Callable[[], docker.DockerClient],
        pool_size: int = 0,
        plugins: tuple[str, ...] | None = None,
    ) -> None:
        """``plugins``: those of the conversations the pool serves (without them no
        sandbox is kept warm: a pool of another plugin set would never be claimed)."""
        self.config = config
        self._plugins = plugins
        self.owner = owner
        self._client_factory = client_factory
        self._client: docker.DockerClient | None = None
        self._deleted: set[str] = set()
        self._deleted_lock = threading.Lock()
        self.pool: DockerWarmPool | None = None
        if pool_size > 0:
            refusal = _pool_refusal(config)
            if refusal:
                logger.warning("Warm sandbox pool off: %s", refusal)
            else:
                self.pool = DockerWarmPool(
                    pool_size,
                    self.current_spec,
                    self.server_url,
                    owner=owner,
                    client_factory=client_factory,
                )
                # Once the VS Code variant is built, plain pool sandboxes are replaced now
                # rather than at the pool's next review.
                VSCODE_VARIANT.add_ready_listener(self.pool.refresh)

    @classmethod
    def for_server(cls, config: OpenHandsConfig, plugins: tuple[str, ...]) -> DockerSandboxes:
        """``plugins``: those of a UI conversation of the server's default agent (the
        server, a layer above, knows the agents)."""
        from openhands.runtime.builder.docker import docker_client

        return cls(config, owner_id(config), docker_client, config.sandbox.warm_pool_size, plugins)

    @property
    def client(self) -> docker.DockerClient:
        if self._client is None:
            self._client = self._client_factory()
        return self._client

    @property
    def labels(self) -> dict[str, str]:
        return {LABEL_OWNER: self.owner}

    def server_url(self, port: int) -> str:
        host_addr = os.environ.get("DOCKER_HOST_ADDR")
        base = f"http://{host_addr}" if host_addr else self.config.sandbox.local_runtime_url
        return f"{base}:{port}"

    def current_spec(self) -> tuple[SandboxSpec, str]:
        """The spec a conversation of this server gets now, and its fingerprint."""
        from openhands.runtime.impl.docker.docker_runtime import (
            runtime_image_for,
            vscode_variant_for,
        )

        plugins = self._plugins or ()
        vscode = self.config.sandbox.enable_vscode and "vscode" in plugins
        image = self.config.sandbox.runtime_container_image
        if image is None:
            image = runtime_image_for(self.config, self.client, enable_vscode=False)
            if vscode:
                # Until the VS Code variant is built, the pool holds plain sandboxes (as a
                # conversation started now gets); its refill after the build replaces them.
                variant = vscode_variant_for(self.config, image)
                vscode = variant is not None
                image = variant or image
        spec = SandboxSpec(
            config=self.config,
            image=image,
            plugins=plugins,
            knobs=pool_knobs(self.config),
            vscode=vscode,
            host_cpus=host_cpus(self.client),
        )
        return spec, spec.fingerprint(self.client.images.get(image).id or image)

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        if self.pool is not None:
            self.pool.start()  # its first refill asks for the VS Code variant
        elif self.config.sandbox.enable_vscode and "vscode" in (self._plugins or ()):
            # No pool to ask for it: start the VS Code variant's build now rather than at
            # the first conversation, so fewer conversations start without VS Code.
            threading.Thread(
                target=self._prepare_vscode, name="vscode-variant-check", daemon=True
            ).start()

    def _prepare_vscode(self) -> None:
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        try:
            self.current_spec()
        except Exception as error:  # a conversation's start reports a real problem
            logger.warning("Could not look for the VS Code sandbox image: %s", error)

    def close(self) -> None:
        if self.pool is not None:
            VSCODE_VARIANT.remove_ready_listener(self.pool.refresh)
            self.pool.close()

    # --- deletes ---------------------------------------------------------------------------

    def is_deleted(self, sid: str) -> bool:
        with self._deleted_lock:
            return sid in self._deleted

    def delete(self, sid: str, container_name: str) -> bool:
        """Remove ``sid``'s sandbox (and its anonymous volumes) now, whatever its loop
        does; a start of ``sid`` still in flight removes what it makes. True if removed."""
        with self._deleted_lock:
            self._deleted.add(sid)
        try:
            self.client.containers.get(container_name).remove(force=True, v=True)
        except NotFound:
            return False
        logger.info("Removed the sandbox of deleted conversation %s", sid)
        return True

    # --- start-up clean-up -----------------------------------------------------------------

    def sweep(
        self,
        conversation_exists: Callable[[str], bool],
        loop_running: Callable[[str], bool],
        container_prefix: str,
        stop: Callable[[Container], None],
    ) -> SweepReport:
        """Clean up after earlier processes of this server (see the module docstring)."""
        report = SweepReport()
        to_stop: list[tuple[str, Container]] = []
        try:
            for container in self.client.containers.list(
                all=True, filters={"label": LABEL_POOL_PROCESS}
            ):
                name = container.name or ""
                labels = container.labels or {}
                if not name.startswith(POOL_NAME_PREFIX):
                    continue  # claimed: a conversation's sandbox now
                made_by = labels.get(LABEL_POOL_PROCESS, "")
                ours = labels.get(LABEL_OWNER) == self.owner
                if self.pool is not None and made_by == self.pool.process:
                    continue
                if ours or not process_alive(made_by):
                    _remove(container)
                    report.pool_removed += 1
            for container in self.client.containers.list(
                all=True, filters={"label": f"{LABEL_OWNER}={self.owner}"}
            ):
                name = container.name or ""
                if not name.startswith(container_prefix):
                    continue
                sid = name[len(container_prefix) :]
                if not conversation_exists(sid):
                    _remove(container)
                    report.orphans_removed += 1
                elif (
                    container.status in ("running", "paused", "restarting")
                    and not loop_running(sid)
                    and not self.config.sandbox.keep_runtime_alive
                ):
                    to_stop.append((sid, container))
        except DockerException as error:
            logger.warning("Sandbox clean-up at start-up: Docker error: %s", error)

        def stop_unless_resumed(item: tuple[str, Container]) -> bool:
            sid, container = item
            # A conversation reopened since the listing keeps its sandbox.
            return not loop_running(sid) and _try(stop, container)

        with ThreadPoolExecutor(SWEEP_WORKERS, thread_name_prefix="sandbox-sweep") as workers:
            report.stopped = sum(workers.map(stop_unless_resumed, to_stop))
        return report


def _remove(container: Container) -> None:
    try:
        container.remove(force=True, v=True)
    except NotFound:
        pass
    except DockerException as error:
        logger.warning("Could not remove %s: %s", container.name, error)


def _try(stop: Callable[[Container], None], container: Container) -> bool:
    try:
        stop(container)
    except DockerException as error:
        logger.warning("Could not stop %s: %s", container.name, error)
        return False
    return True


def _pool_refusal(config: OpenHandsConfig) -> str | None:
    """Why a warm pool cannot work with these settings, or None."""
    sandbox = config.sandbox
    if sandbox.vscode_port and sandbox.enable_vscode:
        return "a fixed [sandbox] vscode_port cannot be shared by several sandboxes"
    return None
