"""DockerRuntime: the action execution server in a local Docker container (runtime.md §12).

Differences from the reference, on purpose (spec §16): every container gets a random session
API key, ports are published on 127.0.0.1 only by default, nothing is ever pulled, and the
image is built locally (reused by content hash).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import secrets
import tarfile
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import docker
import httpx
from docker.errors import APIError, DockerException, NotFound
from docker.models.containers import Container

from openhands.core.config import OpenHandsConfig
from openhands.core.config.sandbox_config import DEFAULT_BASE_CONTAINER_IMAGE
from openhands.core.exceptions import (
    AgentRuntimeDisconnectedError,
    AgentRuntimeError,
    AgentRuntimeNotFoundError,
)
from openhands.core.logger import openhands_logger as logger
from openhands.events.stream import EventStream
from openhands.runtime.base import Plugin, StatusCallback
from openhands.runtime.builder.base_image import DEFAULT_BASE_IMAGE
from openhands.runtime.builder.docker import DockerRuntimeBuilder, docker_client
from openhands.runtime.impl.action_execution.action_execution_client import (
    ActionExecutionClient,
)
from openhands.runtime.impl.docker.container_spec import (
    CODE_DIR,
    CPU_LIMIT_KEYWORDS,
    SANDBOX_CAPABILITIES,
    SERVER_ENV_KNOBS,
    Confinement,
    SandboxPorts,
    SandboxSpec,
    allocate_ports,
    confinement,
    container_env,
    host_cpus,
    ports_of,
    process_volumes,
)
from openhands.runtime.impl.docker.vscode_variant import VSCODE_VARIANT
from openhands.runtime.plugins.requirement import PluginRequirement
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.runtime.server.session_key import KEY_FILE_ENV
from openhands.runtime.utils.command import DEFAULT_MAIN_MODULE, plugin_names
from openhands.runtime.utils.ports import PortLock
from openhands.runtime.utils.runtime_build import build_runtime_image
from openhands.runtime.utils.teardowns import SANDBOX_TEARDOWNS

if TYPE_CHECKING:
    from openhands.llm.llm_registry import LLMRegistry
    from openhands.runtime.impl.docker.sandboxes import DockerSandboxes

__all__ = [
    "CODE_DIR",
    "CONTAINER_NAME_PREFIX",
    "CPU_LIMIT_KEYWORDS",
    "SANDBOX_CAPABILITIES",
    "SERVER_ENV_KNOBS",
    "Confinement",
    "DockerRuntime",
    "runtime_image_for",
    "stop_all_containers",
    "stop_container",
]

CONTAINER_NAME_PREFIX = "openhands-runtime-"
SERVER_MODULE = DEFAULT_MAIN_MODULE
READY_TIMEOUT_SECONDS = 120
READY_POLL_SECONDS = 2
# While a new container starts, look more often: the server needs ~1.5 s, and every poll
# interval adds on average half of itself to the start time the user waits for.
STARTUP_POLL_SECONDS = 0.1


# How long a start waits for this process's own stop of the same container.
STOP_WAIT_SECONDS = 120.0
# How long a start waits for Docker to finish removing a dead container of the same name.
REMOVAL_WAIT_SECONDS = 60.0
# Restarting a stopped container can fail for a moment while the engine still holds the
# ports of its previous run (their proxies are torn down asynchronously, later under load).
RESTART_RETRY_SECONDS = 15.0
RESTART_RETRY_INTERVAL = 0.5
_PORT_STILL_HELD = ("port is already allocated", "address already in use")


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").lower() in ("1", "true", "yes")


# Container names being stopped, in the process's one record of sandbox teardowns (the
# conversation manager's is the same): a start of that container waits for its stop.
_STOPPING = SANDBOX_TEARDOWNS


def _matches(name: str, prefix: str) -> bool:
    # A prefix ending in "-" (CONTAINER_NAME_PREFIX) selects every sandbox; anything else is
    # one container's full name, so closing conversation "a" never stops conversation "ab".
    return name.startswith(prefix) if prefix.endswith("-") else name == prefix


def stop_all_containers(prefix: str, client: docker.DockerClient | None = None) -> None:
    """Stop the sandbox containers selected by ``prefix`` (CONTAINER_NAME_PREFIX: all of them;
    a full container name: that one). Docker errors are logged, not raised."""
    try:
        engine = client or docker_client()
        for container in engine.containers.list(all=True):
            name = container.name or ""
            if not _matches(name, prefix):
                continue
            with _STOPPING.tearing_down(name):
                try:
                    container.stop()
                except NotFound:
                    pass
    except DockerException as e:
        logger.warning("Could not stop containers %s*: %s", prefix, e)
    except AgentRuntimeError as e:
        logger.warning("Could not stop containers %s*: %s", prefix, e)


def stop_container(container: Container) -> None:
    """Stop one sandbox; a start of its conversation meanwhile waits for the stop."""
    with _STOPPING.tearing_down(container.name or ""):
        try:
            container.stop()
        except NotFound:
            pass


def _start_when_ports_free(container: Container) -> None:
    """``container.start()``, retried while the engine still holds the ports of the
    container's previous run; any other failure (or a port held for good) is raised."""
    deadline = time.monotonic() + RESTART_RETRY_SECONDS
    while True:
        try:
            container.start()
            return
        except APIError as e:
            held = any(text in str(e).lower() for text in _PORT_STILL_HELD)
            if not held or time.monotonic() > deadline:
                raise
            logger.info("Ports of %s are still held; retrying its start", container.name)
        time.sleep(RESTART_RETRY_INTERVAL)


def runtime_image_for(
    config: OpenHandsConfig,
    client: docker.DockerClient,
    *,
    enable_vscode: bool,
    progress: Callable[[str], None] | None = None,
    background: bool = False,
) -> str:
    """The runtime image for ``config``: reused by content hash, built when missing
    (``background``: by a build nobody waits for, at a capped CPU share)."""
    base = config.sandbox.base_container_image
    if base in (None, DEFAULT_BASE_CONTAINER_IMAGE):
        base = DEFAULT_BASE_IMAGE
    return build_runtime_image(
        base,
        DockerRuntimeBuilder(client, background=background),
        platform=config.sandbox.platform,
        extra_deps=config.sandbox.runtime_extra_deps,
        force_rebuild=config.sandbox.force_rebuild_runtime,
        extra_build_args=config.sandbox.runtime_extra_build_args,
        enable_browser=config.enable_browser,
        enable_vscode=enable_vscode,
        progress=progress,
    )


def vscode_variant_for(config: OpenHandsConfig, plain_image: str) -> str | None:
    """The VS Code variant of ``plain_image`` when it is built; None (no VS Code for now)
    while it builds in the background (``vscode_variant``)."""

    def build(progress: Callable[[str], None]) -> str:
        return runtime_image_for(
            config, docker_client(), enable_vscode=True, progress=progress, background=True
        )

    return VSCODE_VARIANT.image_for(plain_image, DockerRuntimeBuilder(docker_client()), build)


def read_kept_session_key(container: Container, env: dict[str, str]) -> str | None:
    """The key a claim gave a former pool sandbox (kept in the file its environment names),
    read through the engine (works on a stopped container too); None without one."""
    path = env.get(KEY_FILE_ENV)
    if not path:
        return None
    try:
        stream, _ = container.get_archive(path)
    except NotFound:
        return None
    with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as archive:
        member = archive.next()
        handle = archive.extractfile(member) if member is not None else None
        if handle is None:
            return None
        return handle.read().decode().strip() or None


class DockerRuntime(ActionExecutionClient):
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
        sandboxes: DockerSandboxes | None = None,
    ) -> None:
        """``sandboxes``: the server's sandbox services (owner label, warm pool, deletes);
        None outside the server."""
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
        self.container_name = f"{CONTAINER_NAME_PREFIX}{self.sid}"
        self.container: Container | None = None
        self.runtime_container_image = self.config.sandbox.runtime_container_image
        self.sandboxes = sandboxes
        self._client: docker.DockerClient | None = None
        self._port_locks: list[PortLock] = []
        self._host_port = 0
        self._vscode_port = 0
        self._app_ports: list[int] = []
        self._log_thread: threading.Thread | None = None
        self._stop_logs = threading.Event()
        # How this connect got its sandbox: "attached", "restarted", "claimed" or "created".
        self.sandbox_origin: str | None = None
        # False while the VS Code image variant is still being built (a sandbox made now
        # starts on the plain image); a configured runtime image is taken as it is.
        self._vscode_image = True

    # --- plumbing ----------------------------------------------------------------------

    @property
    def docker(self) -> docker.DockerClient:
        if self._client is None:
            self._client = docker_client()
        return self._client

    @property
    def action_execution_server_url(self) -> str:
        host_addr = os.environ.get("DOCKER_HOST_ADDR")
        base = f"http://{host_addr}" if host_addr else self.config.sandbox.local_runtime_url
        return f"{base}:{self._host_port}"

    @property
    def _vscode_wanted(self) -> bool:
        return self.config.sandbox.enable_vscode and any(
            (p.name if isinstance(p, PluginRequirement) else p) == "vscode" for p in self.plugins
        )

    @property
    def _vscode_enabled(self) -> bool:
        return self._vscode_wanted and self._vscode_image

    def _sandbox_problem(self) -> str | None:
        try:
            container = self.docker.containers.get(self.container_name)
        except NotFound:
            return f"Container {self.container_name} no longer exists"
        except DockerException:
            return None  # the engine did not answer: let the HTTP request decide
        if container.status in ("running", "created", "restarting"):
            return None
        code = container.attrs.get("State", {}).get("ExitCode")
        return f"Container {self.container_name} is {container.status} (exit code {code})"

    def _use_ports(self, ports: SandboxPorts) -> None:
        self._host_port, self._vscode_port = ports.server, ports.vscode
        self._app_ports = [p for p in ports.apps if p]

    # --- connect -------------------------------------------------------------------------

    async def connect(self) -> None:
        self.set_runtime_status(RuntimeStatus.STARTING_RUNTIME)
        self._refuse_if_deleted()
        try:
            attached = await asyncio.to_thread(self._attach_to_container)
        except DockerException as e:
            raise AgentRuntimeError(f"Docker engine error: {e}") from e
        if not attached:
            if self.attach_to_existing:
                raise AgentRuntimeDisconnectedError(f"Container {self.container_name} not found")
            if self.runtime_container_image is None:
                # STATUS$BUILDING_RUNTIME comes from the build's progress, i.e. only when an
                # image is really built; a reused image keeps STATUS$STARTING_RUNTIME.
                self.runtime_container_image = await asyncio.to_thread(self._build_image)
            if not await asyncio.to_thread(self._claim_from_pool):
                await asyncio.to_thread(self._create_container)
            self._refuse_if_deleted()
            self.set_runtime_status(RuntimeStatus.RUNTIME_STARTED)
        if _truthy("DEBUG_RUNTIME"):
            self._start_log_streamer()
        await asyncio.to_thread(self.wait_until_alive)
        if not self.attach_to_existing:
            await asyncio.to_thread(self.setup_initial_env)
        self._runtime_initialized = True
        self.set_runtime_status(RuntimeStatus.READY)
        for network in self.config.sandbox.additional_networks:
            try:
                self.docker.networks.get(network).connect(self.container)
            except DockerException as e:
                logger.error(
                    "Could not connect %s to network %s: %s", self.container_name, network, e
                )

    def _refuse_if_deleted(self) -> None:
        """A conversation deleted while its start was in flight: remove what the start made."""
        if self.sandboxes is None or not self.sandboxes.is_deleted(self.sid):
            return
        with contextlib.suppress(DockerException):
            self.docker.containers.get(self.container_name).remove(force=True, v=True)
        raise AgentRuntimeDisconnectedError(f"Conversation {self.sid} was deleted")

    def _build_image(self) -> str:
        built = False

        def progress(line: str) -> None:
            nonlocal built
            built = True
            self.set_runtime_status(RuntimeStatus.BUILDING_RUNTIME, line)

        image = runtime_image_for(self.config, self.docker, enable_vscode=False, progress=progress)
        if built:
            self.set_runtime_status(RuntimeStatus.STARTING_RUNTIME)
        if self._vscode_wanted:
            variant = vscode_variant_for(self.config, image)
            self._vscode_image = variant is not None
            image = variant or image
        return image

    def _attach_to_container(self) -> bool:
        """Attach to this conversation's container, restarting it when it was stopped.

        False when there is none to attach to (a fresh one is then created). Never attaches
        to a container that is going away: a stop in flight in this process is waited for,
        and a dead container (or one being removed) is removed, so a fresh one starts.
        """
        if not _STOPPING.wait(self.container_name, STOP_WAIT_SECONDS):
            logger.warning("%s is still being stopped; attaching anyway", self.container_name)
        try:
            container = self.docker.containers.get(self.container_name)
        except NotFound:
            return False
        if container.status in ("dead", "removing"):
            if self.attach_to_existing:
                return False
            self._discard_container(container)
            return False
        self.sandbox_origin = "attached"
        if container.status == "paused":
            container.unpause()
            container.reload()
        elif container.status in ("exited", "created"):
            self.set_runtime_status(RuntimeStatus.RESTARTING_RUNTIME)
            try:
                _start_when_ports_free(container)
            except APIError as e:
                if self.attach_to_existing:
                    raise
                # e.g. a port it had is taken now: its workspace is mounted, start afresh.
                logger.warning(
                    "Could not restart %s (%s); starting a new one", self.container_name, e
                )
                self._discard_container(container)
                return False
            container.reload()
            self.sandbox_origin = "restarted"
            logger.info("Restarted the stopped sandbox %s", self.container_name)
        self.container = container
        env = container_env(container)
        exposed = container.attrs["Config"].get("ExposedPorts") or {}
        self._use_ports(ports_of(env, [int(p.split("/")[0]) for p in exposed]))
        # A former pool sandbox answers only the key its claim gave it.
        self.session_api_key = read_kept_session_key(container, env) or (
            env.get("SESSION_API_KEY") or None
        )
        return True

    def _claim_from_pool(self) -> bool:
        """Take a warm sandbox made for exactly this spec; False on a miss (or no pool)."""
        pool = self.sandboxes.pool if self.sandboxes is not None else None
        if pool is None:
            return False
        image = self.runtime_container_image
        assert image is not None
        try:
            image_id = self.docker.images.get(image).id or image
        except DockerException:
            return False
        claimed = pool.claim(self._spec(image).fingerprint(image_id), self.container_name)
        if claimed is None:
            return False
        self.set_runtime_status(RuntimeStatus.CLAIMING_WARM_RUNTIME)
        self.container = self.docker.containers.get(claimed.container_id)
        # The key first: whoever sees the port next must find the key that opens it.
        self.session_api_key = claimed.session_api_key
        self._use_ports(claimed.ports)
        self.sandbox_origin = "claimed"
        return True

    def _discard_container(self, container: Container) -> None:
        """Remove ``container`` and wait until its name is free for a new one."""
        try:
            container.remove(force=True)
        except NotFound:
            return
        except APIError as e:  # e.g. a removal already in progress
            logger.info("Removing %s: %s", self.container_name, e)
        deadline = time.monotonic() + REMOVAL_WAIT_SECONDS
        while time.monotonic() < deadline:
            try:
                self.docker.containers.get(self.container_name)
            except NotFound:
                return
            time.sleep(0.2)
        raise AgentRuntimeError(f"Container {self.container_name} could not be removed")

    def _spec(self, image: str) -> SandboxSpec:
        return SandboxSpec(
            config=self.config,
            image=image,
            plugins=tuple(plugin_names(self.plugins)),
            knobs=self.initial_env_vars,
            vscode=self._vscode_enabled,
            host_cpus=host_cpus(self.docker),
        )

    def _process_volumes(self) -> dict[str, dict[str, str]] | None:
        return process_volumes(self.config)

    def _create_container(self) -> None:
        ports = allocate_ports(self.docker, self.config, self._port_locks)
        self._use_ports(ports)
        self.session_api_key = secrets.token_urlsafe(32)
        assert self.runtime_container_image is not None
        if not DockerRuntimeBuilder(self.docker).image_exists(self.runtime_container_image):
            raise AgentRuntimeError(
                f"Runtime image {self.runtime_container_image} does not exist locally "
                "(images are never pulled)"
            )
        labels = self.sandboxes.labels if self.sandboxes is not None else None
        kwargs = self._spec(self.runtime_container_image).run_kwargs(
            self.container_name, ports, self.session_api_key, labels=labels
        )
        try:
            self.container = self.docker.containers.run(**kwargs)
        except (APIError, DockerException) as e:
            self._release_ports()
            raise AgentRuntimeError(f"Could not start container {self.container_name}: {e}") from e
        self.sandbox_origin = "created"
        logger.info(
            "Started %s from %s, server on port %d",
            self.container_name,
            self.runtime_container_image,
            self._host_port,
        )

    def _confinement(self) -> Confinement:
        """Resource limits and capabilities of a new sandbox (see ``container_spec``)."""
        return confinement(self.config, host_cpus(self.docker))

    def _start_log_streamer(self) -> None:
        container = self.container
        if container is None:
            return

        def stream() -> None:
            try:
                for line in container.logs(stream=True, follow=True):
                    if self._stop_logs.is_set():
                        return
                    logger.debug("[inside container] %s", line.decode(errors="replace").rstrip())
            except DockerException:
                return

        self._log_thread = threading.Thread(target=stream, daemon=True)
        self._log_thread.start()

    def wait_until_alive(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        last_error: Exception | None = None
        while True:
            try:
                container = self.docker.containers.get(self.container_name)
            except NotFound as e:
                raise AgentRuntimeNotFoundError(f"Container {self.container_name} not found") from e
            if container.status == "exited":
                logs = container.logs(tail=30).decode(errors="replace")
                raise AgentRuntimeDisconnectedError(
                    f"Container {self.container_name} has exited. Last output:\n{logs}"
                )
            try:
                self.check_if_alive()
                return
            except (httpx.HTTPError, AgentRuntimeError) as e:
                last_error = e
            if time.monotonic() > deadline:
                raise AgentRuntimeError(
                    f"Runtime {self.container_name} did not become ready: {last_error}"
                )
            time.sleep(READY_POLL_SECONDS if self._runtime_initialized else STARTUP_POLL_SECONDS)

    # --- lifecycle -------------------------------------------------------------------------

    def _release_ports(self) -> None:
        for lock in self._port_locks:
            lock.release()
        self._port_locks = []

    def pause(self) -> None:
        if self.container is None:
            raise RuntimeError("Container not initialized")
        self.container.stop()

    def resume(self) -> None:
        if self.container is None:
            raise RuntimeError("Container not initialized")
        self.container.start()
        self.wait_until_alive()

    def close(self, rm_all_containers: bool | None = None) -> None:
        if self.closed:
            return
        super().close()
        self._stop_logs.set()
        if self.config.sandbox.keep_runtime_alive or self.attach_to_existing:
            return
        remove_all = (
            self.config.sandbox.rm_all_containers
            if rm_all_containers is None
            else rm_all_containers
        )
        # A start of this conversation waits until the stop is over (``_attach_to_container``).
        with _STOPPING.tearing_down(self.container_name):
            # Looked up through the module so the stop can be observed (and replaced in tests).
            stop_all_containers(CONTAINER_NAME_PREFIX if remove_all else self.container_name)
            self._release_ports()

    @classmethod
    async def delete(cls, conversation_id: str) -> None:
        def remove() -> None:
            try:
                docker_client().containers.get(f"{CONTAINER_NAME_PREFIX}{conversation_id}").remove(
                    force=True, v=True
                )
            except Exception:
                pass

        await asyncio.to_thread(remove)

    # --- what the UI shows -----------------------------------------------------------------

    @property
    def web_hosts(self) -> dict[str, int]:
        host = os.environ.get("DOCKER_HOST_ADDR", "localhost")
        return {f"http://{host}:{port}": port for port in self._app_ports}

    @property
    def vscode_url(self) -> str | None:
        token = self.get_vscode_token()
        if not token:
            return None
        return (
            f"http://localhost:{self._vscode_port}/?tkn={token}"
            f"&folder={self.config.workspace_mount_path_in_sandbox}"
        )
