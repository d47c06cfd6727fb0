"""SandboxService: start, inspect, pause, resume and stop sandboxes over the engine pool.

One sandbox per session id. Placement picks the engine with the fewest live sandboxes of
this service (ties by engine name). Redis holds the truth about what the service created;
the engines hold the truth about what still runs, and ``refresh`` reconciles the two.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import Counter
from dataclasses import dataclass, replace

import httpx

from openhands.core.logger import openhands_logger as logger
from openhands.runtime.remote_api.engines import (
    LABEL_NAMESPACE,
    LABEL_RUNTIME_ID,
    LABEL_SESSION_ID,
    ContainerSpec,
    ContainerState,
    EnginePool,
)
from openhands.runtime.remote_api.errors import EngineError, RuntimeConflict, UnknownRuntime
from openhands.runtime.remote_api.models import PodStatus, SandboxStatus, StartRequest
from openhands.runtime.remote_api.store import SandboxRecord, StateStore
from openhands.runtime.remote_api.warm_pool import WarmPool

CONTAINER_NAME_PREFIX = "openhands-sandbox-"
ALIVE_TIMEOUT_SECONDS = 3.0
GIB = 1024**3

# Capabilities a sandbox keeps (the local DockerRuntime keeps the same set): the root
# action server chowns and reads files of any owner, and su/sudo switch users.
SANDBOX_CAPABILITIES = (
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "SETGID",
    "SETUID",
    "NET_BIND_SERVICE",
    "AUDIT_WRITE",
)

_CONTAINER_TO_STATUS = {
    ContainerState.RUNNING: SandboxStatus.RUNNING,
    ContainerState.PAUSED: SandboxStatus.PAUSED,
    ContainerState.EXITED: SandboxStatus.FAILED,
    ContainerState.MISSING: SandboxStatus.STOPPED,
}


@dataclass(frozen=True)
class Limits:
    """Per unit of ``resource_factor``."""

    memory_bytes: int = 4 * GIB
    cpus: float = 2.0
    pids_limit: int = 4096


class SandboxService:
    def __init__(
        self,
        store: StateStore,
        pool: EnginePool,
        publish_host: str = "127.0.0.1",
        limits: Limits | None = None,
        warm_pool_size: int = 0,
    ) -> None:
        self._store = store
        self._pool = pool
        self._publish_host = publish_host
        self._limits = limits or Limits()
        self._placement = asyncio.Lock()
        self._session_locks: dict[str, asyncio.Lock] = {}
        self._http = httpx.AsyncClient(timeout=ALIVE_TIMEOUT_SECONDS)
        self.warm = WarmPool(pool, warm_pool_size, store.namespace, self._spec, publish_host)

    async def aclose(self) -> None:
        await self.warm.aclose()
        await self._http.aclose()

    def _lock(self, session_id: str) -> asyncio.Lock:
        return self._session_locks.setdefault(session_id, asyncio.Lock())

    # -- start ----------------------------------------------------------------------------

    async def start(self, request: StartRequest) -> SandboxRecord:
        """The session's sandbox: the existing one if it still lives, else a new one."""
        async with self._lock(request.session_id):
            existing = await self._store.for_session(request.session_id)
            if existing is not None and existing.live:
                existing = await self.refresh(existing)
                if existing.status == SandboxStatus.PAUSED:
                    return await self._unpause(existing)
                if existing.status == SandboxStatus.RUNNING:
                    return existing
            if existing is not None and existing.container_id is not None:
                await self._discard(existing)
            return await self._create(request)

    async def _create(self, request: StartRequest) -> SandboxRecord:
        claimed = await self.warm.claim(request, await self._engines_by_load())
        if claimed is not None:
            record = SandboxRecord(
                runtime_id=claimed.runtime_id,
                session_id=request.session_id,
                engine=claimed.engine,
                image=request.image,
                status=SandboxStatus.RUNNING,
                session_api_key=claimed.session_api_key,
                container_id=claimed.container_id,
                host_port=claimed.host_port,
                url=claimed.url,
            )
            await self._store.save(record)
            return record
        async with self._placement:
            record = SandboxRecord(
                runtime_id=secrets.token_hex(8),
                session_id=request.session_id,
                engine=await self._least_loaded(),
                image=request.image,
                status=SandboxStatus.STARTING,
                session_api_key=secrets.token_urlsafe(32),
            )
            await self._store.save(record)  # counts for the next placement from now on
        logger.info(
            "Starting sandbox %s for session %s on %s",
            record.runtime_id,
            record.session_id,
            record.engine,
        )
        try:
            await self._pool.ensure_image(record.engine, request.image)
            assert record.session_api_key is not None
            spec = self._spec(record.runtime_id, request, record.session_api_key)
            spec = replace(spec, labels={**spec.labels, LABEL_SESSION_ID: record.session_id})
            container_id, port = await self._pool.create(record.engine, spec)
        except BaseException as exc:
            # Whatever went wrong, the record must not keep counting as a live sandbox.
            record.status, record.session_api_key = SandboxStatus.FAILED, None
            record.error = str(exc) or type(exc).__name__
            await asyncio.shield(self._store.save(record))
            raise
        record.container_id, record.host_port = container_id, port
        record.url = f"http://{self._publish_host}:{port}"
        record.status = SandboxStatus.RUNNING
        await self._store.save(record)
        return record

    async def _engines_by_load(self) -> list[str]:
        load = Counter(
            record.engine
            for record in await self._store.live()
            if record.engine in self._pool.engines
        )
        return sorted(self._pool.names, key=lambda name: (load[name], name))

    async def _least_loaded(self) -> str:
        """The engine with the fewest live sandboxes among those that answer now: a dead
        engine holds no live sandboxes, so it would always look the least loaded."""
        load = Counter(
            record.engine
            for record in await self._store.live()
            if record.engine in self._pool.engines
        )
        for name in sorted(self._pool.names, key=lambda name: (load[name], name)):
            if await self._pool.answers(name):
                return name
        raise EngineError("No Docker engine of the pool answers")

    def _spec(self, runtime_id: str, request: StartRequest, session_api_key: str) -> ContainerSpec:
        factor = request.resource_factor
        return ContainerSpec(
            name=f"{CONTAINER_NAME_PREFIX}{runtime_id}",
            image=request.image,
            command=request.command,
            # The server reads its key from SESSION_API_KEY; the caller cannot replace it.
            environment={
                **request.environment,
                "PYTHONUNBUFFERED": "1",
                "SESSION_API_KEY": session_api_key,
            },
            working_dir=request.working_dir,
            labels={LABEL_NAMESPACE: self._store.namespace, LABEL_RUNTIME_ID: runtime_id},
            publish_host=self._publish_host,
            memory_bytes=self._limits.memory_bytes * factor,
            cpus=self._limits.cpus * factor,
            pids_limit=self._limits.pids_limit * factor,
            cap_add=SANDBOX_CAPABILITIES,
            runtime=request.runtime_class,
        )

    # -- look-ups -------------------------------------------------------------------------

    async def get(self, runtime_id: str) -> SandboxRecord:
        record = await self._store.get(runtime_id)
        if record is None:
            raise UnknownRuntime(f"No runtime {runtime_id}")
        return record

    async def for_session(self, session_id: str) -> SandboxRecord:
        record = await self._store.for_session(session_id)
        if record is None:
            raise UnknownRuntime(f"No runtime for session {session_id}")
        return await self.refresh(record)

    async def pod_status(self, runtime_id: str) -> tuple[SandboxRecord, PodStatus]:
        record = await self.refresh(await self.get(runtime_id))
        if record.status != SandboxStatus.RUNNING:
            return record, _POD_STATUS[record.status]
        return record, PodStatus.READY if await self._alive(record) else PodStatus.RUNNING

    async def _alive(self, record: SandboxRecord) -> bool:
        try:
            response = await self._http.get(f"{record.url}/alive")
            return response.status_code == 200 and response.json().get("status") == "ok"
        except (httpx.HTTPError, ValueError):
            return False

    async def refresh(self, record: SandboxRecord) -> SandboxRecord:
        """Bring a live record in line with its container (which may have exited or gone)."""
        if not record.live or record.container_id is None:
            return record
        try:
            state = await self._pool.state(record.engine, record.container_id)
        except (EngineError, KeyError) as exc:
            logger.warning("Cannot inspect sandbox %s: %s", record.runtime_id, exc)
            return record
        status = _CONTAINER_TO_STATUS.get(state, record.status)
        if status != record.status:
            logger.info("Sandbox %s is now %s", record.runtime_id, status.value)
            record.status = status
            if not record.live:
                record.session_api_key = None
                record.error = f"container {state.value}"
            await self._store.save(record)
        return record

    # -- pause, resume, stop ----------------------------------------------------------------

    async def pause(self, runtime_id: str) -> SandboxRecord:
        record = await self.get(runtime_id)
        async with self._lock(record.session_id):
            record = await self.refresh(await self.get(runtime_id))
            if record.status == SandboxStatus.PAUSED:
                return record
            if record.status != SandboxStatus.RUNNING or record.container_id is None:
                raise RuntimeConflict(f"Runtime {runtime_id} is {record.status.value}")
            await self._pool.pause(record.engine, record.container_id)
            record.status = SandboxStatus.PAUSED
            await self._store.save(record)
            return record

    async def resume(self, runtime_id: str) -> SandboxRecord:
        record = await self.get(runtime_id)
        async with self._lock(record.session_id):
            record = await self.refresh(await self.get(runtime_id))
            if record.status == SandboxStatus.RUNNING:
                return record
            if record.status != SandboxStatus.PAUSED:
                raise RuntimeConflict(f"Runtime {runtime_id} is {record.status.value}")
            return await self._unpause(record)

    async def _unpause(self, record: SandboxRecord) -> SandboxRecord:
        assert record.container_id is not None
        await self._pool.unpause(record.engine, record.container_id)
        record.status = SandboxStatus.RUNNING
        await self._store.save(record)
        return record

    async def stop(self, runtime_id: str) -> SandboxRecord:
        record = await self.get(runtime_id)
        async with self._lock(record.session_id):
            record = await self.get(runtime_id)
            if record.status == SandboxStatus.STOPPED:
                return record
            await self._discard(record)
            return record

    async def _discard(self, record: SandboxRecord) -> None:
        """Remove the container (if any) and mark the record stopped."""
        if record.container_id is not None and record.engine in self._pool.engines:
            await self._pool.remove(record.engine, record.container_id)
        logger.info("Removed sandbox %s of session %s", record.runtime_id, record.session_id)
        record.status, record.session_api_key = SandboxStatus.STOPPED, None
        await self._store.save(record)

    # -- after a restart ----------------------------------------------------------------------

    async def reconcile(self) -> None:
        """Find the sandboxes again after a restart: settle records whose start was cut
        short, refresh the others, and remove containers no record owns any more."""
        for record in await self._store.live():
            if record.engine not in self._pool.engines:
                record.status, record.session_api_key = SandboxStatus.FAILED, None
                record.error = "engine no longer in the pool"
                await self._store.save(record)
            elif record.status == SandboxStatus.STARTING:
                # Cut short by the restart: its container, if any, is not on record.
                record.status, record.session_api_key = SandboxStatus.FAILED, None
                record.error = "the service restarted while it was starting"
                await self._store.save(record)
            else:
                await self.refresh(record)
        for engine in self._pool.names:
            try:
                containers = await self._pool.managed(engine, self._store.namespace)
            except EngineError as exc:
                logger.warning("Cannot list sandboxes on %s: %s", engine, exc)
                continue
            for runtime_id, container_id in containers.items():
                owner = await self._store.get(runtime_id)
                if (
                    owner is not None
                    and owner.container_id == container_id
                    and owner.status != SandboxStatus.STOPPED
                ):
                    continue
                logger.info("Removing orphan sandbox container %s on %s", container_id, engine)
                await self._pool.remove(engine, container_id)


_POD_STATUS = {
    SandboxStatus.STARTING: PodStatus.PENDING,
    SandboxStatus.PAUSED: PodStatus.PAUSED,
    SandboxStatus.STOPPED: PodStatus.STOPPED,
    SandboxStatus.FAILED: PodStatus.FAILED,
}
