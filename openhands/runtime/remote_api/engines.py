"""The pool of Docker engines: the service's one adapter to docker-py.

Every call blocks, so each public method runs the SDK in a worker thread
(``asyncio.to_thread``) and translates ``DockerException`` into ``EngineError`` here, once.
Engines are named by their DOCKER_HOST URL: ``unix://`` sockets, or ``tcp://`` with mutual
TLS (``engine_tls.py``). Images are never pulled: an engine that lacks
one gets it streamed from an engine that has it (``docker save`` into ``docker load``).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

import docker
import requests
from docker.errors import APIError, DockerException, ImageNotFound, NotFound
from docker.models.containers import Container
from docker.models.images import Image

from openhands.core.logger import openhands_logger as logger
from openhands.runtime.remote_api.engine_tls import EngineTLS, engine_tls
from openhands.runtime.remote_api.errors import EngineError, ImageNotAvailable

# Labels of every sandbox container (never the session API key: labels are public).
LABEL_NAMESPACE = "openhands.runtime-api.namespace"
LABEL_RUNTIME_ID = "openhands.runtime-api.runtime-id"
LABEL_SESSION_ID = "openhands.runtime-api.session-id"
SERVER_PORT = 60000
API_TIMEOUT_SECONDS = 120
# Image transfers and builds move gigabytes; the timeout is per socket read, not in total.
BULK_TIMEOUT_SECONDS = 1800
PORT_ATTEMPTS = 5

T = TypeVar("T")


class ContainerState(StrEnum):
    CREATED = "created"
    RUNNING = "running"
    PAUSED = "paused"
    EXITED = "exited"  # also dead, removing
    MISSING = "missing"


@dataclass(frozen=True)
class ContainerSpec:
    """Everything one sandbox container is created with."""

    name: str
    image: str
    command: list[str]
    environment: dict[str, str]
    working_dir: str
    labels: dict[str, str]
    publish_host: str
    memory_bytes: int
    cpus: float
    pids_limit: int
    cap_add: tuple[str, ...] = ()
    runtime: str | None = None
    # Docker's CPU weight (None: the engine's default); warm-pool sandboxes start low.
    cpu_shares: int | None = None


@dataclass(frozen=True)
class ImageDetails:
    engine: str
    created: str | None
    size_bytes: int | None


@dataclass
class Engine:
    """One engine of the pool. Its clients connect on first use (in a worker thread), so an
    engine that is down when the service starts does not stop the service."""

    name: str
    tls: EngineTLS | None = None
    _client: docker.DockerClient | None = field(default=None, repr=False)
    _bulk: docker.DockerClient | None = field(default=None, repr=False)
    _ncpu: float | None = field(default=None, repr=False)
    _connecting: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def client(self) -> docker.DockerClient:
        with self._connecting:
            if self._client is None:
                self._client = _docker_client(self.name, API_TIMEOUT_SECONDS, self.tls)
            return self._client

    @property
    def bulk(self) -> docker.DockerClient:
        """The same engine, with the long timeout."""
        with self._connecting:
            if self._bulk is None:
                self._bulk = _docker_client(self.name, BULK_TIMEOUT_SECONDS, self.tls)
            return self._bulk

    def close(self) -> None:
        for client in (self._client, self._bulk):
            if client is not None:
                client.close()


def _docker_client(url: str, timeout: int, tls: EngineTLS | None) -> docker.DockerClient:
    if tls is None:
        return docker.DockerClient(base_url=url, timeout=timeout)
    # docker-py's client is a requests Session, and requests lets REQUESTS_CA_BUNDLE (set on
    # many hosts) replace the session's CA file on every request: the engine's certificate
    # would then be checked against the public CAs and refused. `trust_env = False` keeps
    # ca.pem, but only takes effect after construction, while a default client already
    # asks the engine for its API version in its constructor. So: ask with a throw-away
    # client first, then build the real one with that version.
    probe = docker.APIClient(
        base_url=url,
        timeout=timeout,
        tls=tls.docker_config(),
        version=docker.constants.MINIMUM_DOCKER_API_VERSION,
    )
    try:
        probe.trust_env = False
        version = str(probe.version(api_version=False)["ApiVersion"])
    finally:
        probe.close()
    client = docker.DockerClient(
        base_url=url, timeout=timeout, tls=tls.docker_config(), version=version
    )
    client.api.trust_env = False
    return client


def free_port(host: str) -> int:
    """A port nothing listens on right now (the engine's proxy binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


class EnginePool:
    def __init__(self, urls: Sequence[str], tls_cert_path: Path | None = None) -> None:
        """``tls_cert_path``: the folder of the ``tcp://`` engines' TLS files (see
        ``engine_tls``). A URL the pool cannot use safely is a ``ValueError`` here."""
        if not urls:
            raise ValueError("the engine pool needs at least one DOCKER_HOST URL")
        self.engines: dict[str, Engine] = {
            url: Engine(url, engine_tls(url, tls_cert_path)) for url in urls
        }
        self._image_locks: dict[tuple[str, str], asyncio.Lock] = {}

    @property
    def names(self) -> list[str]:
        return sorted(self.engines)

    def close(self) -> None:
        for engine in self.engines.values():
            engine.close()

    async def answers(self, engine: str) -> bool:
        """Whether ``engine`` answers a ping now."""
        try:
            await self._call(engine, lambda e: e.client.ping())
        except EngineError as exc:
            logger.warning("Docker engine %s does not answer: %s", engine, exc)
            return False
        return True

    async def _call(self, engine: str, work: Callable[[Engine], T]) -> T:
        try:
            return await asyncio.to_thread(work, self.engines[engine])
        # requests' errors escape docker-py when a connection breaks after the first call
        # (an engine restarting, a TLS handshake refused).
        except (DockerException, requests.RequestException) as exc:
            raise EngineError(f"Docker engine {engine}: {exc}") from exc

    # -- images ---------------------------------------------------------------------------

    async def image_details(self, image: str) -> ImageDetails | None:
        """Where ``image`` exists (the first engine by name), or None."""
        for name in self.names:
            try:
                found = await self._call(name, lambda e: _get_image(e.client, image))
            except EngineError as exc:
                logger.warning("Skipping engine while looking for %s: %s", image, exc)
                continue
            if found is not None:
                return ImageDetails(name, found.attrs.get("Created"), found.attrs.get("Size"))
        return None

    async def has_image(self, engine: str, image: str) -> bool:
        return await self._call(engine, lambda e: _get_image(e.client, image)) is not None

    async def ensure_image(self, engine: str, image: str) -> None:
        """Make ``image`` exist on ``engine``, copying it from another engine if needed."""
        lock = self._image_locks.setdefault((engine, image), asyncio.Lock())
        async with lock:
            if await self.has_image(engine, image):
                return
            for source in self.names:
                if source != engine and await self.has_image(source, image):
                    await self.transfer(image, source, engine)
                    return
            raise ImageNotAvailable(
                f"Image {image} is on none of the engines (images are never pulled)"
            )

    async def transfer(self, image: str, source: str, target: str) -> None:
        logger.info("Copying image %s from %s to %s", image, source, target)
        source_engine, target_engine = self.engines[source], self.engines[target]

        def copy() -> None:
            found = source_engine.bulk.images.get(image)
            name: str | bool = image if image in found.tags else bool(found.tags)
            target_engine.bulk.images.load(found.save(named=name))
            if _get_image(target_engine.client, image) is None:
                # Saved by id (no tag matched): name it as it was asked for.
                target_engine.client.images.get(found.id).tag(image)

        try:
            await asyncio.to_thread(copy)
        except (DockerException, requests.RequestException) as exc:
            raise EngineError(f"Copying {image} from {source} to {target}: {exc}") from exc
        logger.info("Copied image %s to %s", image, target)

    async def engine_with_image(self, image: str) -> str | None:
        details = await self.image_details(image)
        return None if details is None else details.engine

    async def build(self, engine: str, context_gz: bytes, tags: Sequence[str]) -> str:
        """Build the gzip tar ``context_gz`` on ``engine``; return the first tag."""

        def run_build(e: Engine) -> str:
            built, _logs = e.bulk.images.build(
                fileobj=io.BytesIO(context_gz),
                custom_context=True,
                encoding="gzip",
                tag=tags[0],
                rm=True,
                forcerm=True,
            )
            for extra in tags[1:]:
                repository, _, tag = extra.rpartition(":")
                if not repository or "/" in tag:
                    repository, tag = extra, "latest"
                built.tag(repository, tag)
            return tags[0]

        return await self._call(engine, run_build)

    # -- containers -----------------------------------------------------------------------

    async def ncpu(self, engine: str) -> float:
        target = self.engines[engine]
        if target._ncpu is None:
            info = await self._call(engine, lambda e: e.client.info())
            target._ncpu = float(info.get("NCPU") or 1)
        return target._ncpu

    async def create(self, engine: str, spec: ContainerSpec) -> tuple[str, int]:
        """Create and start a sandbox; return its container id and published host port."""
        cpus = min(spec.cpus, await self.ncpu(engine))

        def run(e: Engine) -> tuple[str, int]:
            last: APIError | None = None
            for _ in range(PORT_ATTEMPTS):
                port = free_port(spec.publish_host)
                container = e.client.containers.create(
                    spec.image,
                    command=spec.command,
                    entrypoint=[],
                    name=spec.name,
                    working_dir=spec.working_dir,
                    environment=spec.environment,
                    labels=spec.labels,
                    ports={f"{SERVER_PORT}/tcp": (spec.publish_host, port)},
                    mem_limit=spec.memory_bytes,
                    nano_cpus=int(cpus * 1e9),
                    pids_limit=spec.pids_limit,
                    cap_drop=["ALL"],
                    cap_add=list(spec.cap_add),
                    runtime=spec.runtime,
                    cpu_shares=spec.cpu_shares,
                    # PID 1 is Docker's init: it reaps the orphans of the agent's commands.
                    init=True,
                    detach=True,
                )
                try:
                    container.start()
                    return str(container.id), port
                except APIError as exc:
                    with contextlib.suppress(DockerException):
                        container.remove(force=True)
                    if "already" not in str(exc) and "in use" not in str(exc):
                        raise
                    last = exc  # someone took the port meanwhile: try another
            assert last is not None
            raise last

        return await self._call(engine, run)

    async def update_cpu_shares(self, engine: str, container_id: str, shares: int) -> None:
        await self._call(
            engine, lambda e: e.client.containers.get(container_id).update(cpu_shares=shares)
        )

    async def state(self, engine: str, container_id: str) -> ContainerState:
        def inspect(e: Engine) -> ContainerState:
            try:
                container = e.client.containers.get(container_id)
            except NotFound:
                return ContainerState.MISSING
            return _state_of(container)

        return await self._call(engine, inspect)

    async def pause(self, engine: str, container_id: str) -> None:
        await self._call(engine, lambda e: e.client.containers.get(container_id).pause())

    async def unpause(self, engine: str, container_id: str) -> None:
        await self._call(engine, lambda e: e.client.containers.get(container_id).unpause())

    async def remove(self, engine: str, container_id: str) -> None:
        def remove(e: Engine) -> None:
            with contextlib.suppress(NotFound):
                e.client.containers.get(container_id).remove(force=True)

        await self._call(engine, remove)

    async def logs_tail(self, engine: str, container_id: str, lines: int = 20) -> str:
        def tail(e: Engine) -> str:
            data = e.client.containers.get(container_id).logs(tail=lines)
            return data.decode(errors="replace") if isinstance(data, bytes) else str(data)

        try:
            return await self._call(engine, tail)
        except EngineError:
            return ""

    async def managed(self, engine: str, namespace: str) -> dict[str, str]:
        """Runtime id → container id of this namespace's sandboxes on ``engine``."""

        def listing(e: Engine) -> dict[str, str]:
            found = e.client.containers.list(
                all=True, filters={"label": f"{LABEL_NAMESPACE}={namespace}"}
            )
            return {str(c.labels.get(LABEL_RUNTIME_ID, "")): str(c.id) for c in found}

        return await self._call(engine, listing)


def _get_image(client: docker.DockerClient, image: str) -> Image | None:
    try:
        return client.images.get(image)
    except ImageNotFound:
        return None


def _state_of(container: Container) -> ContainerState:
    status = container.status
    if status in ("running", "restarting"):
        return ContainerState.RUNNING
    if status == "paused":
        return ContainerState.PAUSED
    if status == "created":
        return ContainerState.CREATED
    return ContainerState.EXITED
