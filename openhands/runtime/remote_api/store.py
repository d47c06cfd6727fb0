"""The service's state in Redis: one JSON record per sandbox and per build.

Keys (``P`` = the namespace, ``openhands-runtime-api`` by default)::

    P:runtime:<runtime_id>   SandboxRecord JSON (the only place the session API key lives)
    P:session:<session_id>  the session's current runtime id
    P:live                  set of runtime ids that are not stopped (placement, reconcile)
    P:build:<build_id>      BuildRecord JSON

Records of stopped sandboxes and finished builds expire after ``retention_seconds``.
"""

from __future__ import annotations

import time
from typing import Literal

from pydantic import BaseModel, Field
from redis.asyncio import Redis

from openhands.runtime.remote_api.models import BuildStatus, SandboxStatus

DEFAULT_NAMESPACE = "openhands-runtime-api"
DEFAULT_RETENTION_SECONDS = 24 * 3600


class SandboxRecord(BaseModel):
    version: Literal[1] = 1
    runtime_id: str
    session_id: str
    engine: str = Field(description="The engine's DOCKER_HOST URL")
    image: str
    status: SandboxStatus
    host_port: int | None = None
    url: str | None = None
    session_api_key: str | None = Field(default=None, description="Dropped once stopped")
    container_id: str | None = None
    error: str | None = None
    created_at: float = Field(default_factory=time.time)
    updated_at: float = Field(default_factory=time.time)

    @property
    def live(self) -> bool:
        return self.status not in (SandboxStatus.STOPPED, SandboxStatus.FAILED)


class BuildRecord(BaseModel):
    version: Literal[1] = 1
    build_id: str
    target_image: str
    tags: list[str] = Field(default_factory=list)
    status: BuildStatus
    engine: str | None = None
    error: str | None = None
    created_at: float = Field(default_factory=time.time)


class StateStore:
    """Typed reads and writes of the records above."""

    def __init__(
        self,
        redis: Redis,
        namespace: str = DEFAULT_NAMESPACE,
        retention_seconds: int = DEFAULT_RETENTION_SECONDS,
    ) -> None:
        self._redis = redis
        self.namespace = namespace
        self._retention = retention_seconds

    def _key(self, *parts: str) -> str:
        return ":".join((self.namespace, *parts))

    async def ping(self) -> None:
        await self._redis.ping()

    async def aclose(self) -> None:
        await self._redis.aclose()

    # -- sandboxes ------------------------------------------------------------------------

    async def save(self, record: SandboxRecord) -> None:
        record.updated_at = time.time()
        ttl = None if record.live else self._retention
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(self._key("runtime", record.runtime_id), record.model_dump_json(), ex=ttl)
            pipe.set(self._key("session", record.session_id), record.runtime_id, ex=ttl)
            if record.live:
                pipe.sadd(self._key("live"), record.runtime_id)
            else:
                pipe.srem(self._key("live"), record.runtime_id)
            await pipe.execute()

    async def get(self, runtime_id: str) -> SandboxRecord | None:
        raw = await self._redis.get(self._key("runtime", runtime_id))
        return None if raw is None else SandboxRecord.model_validate_json(raw)

    async def for_session(self, session_id: str) -> SandboxRecord | None:
        runtime_id = await self._redis.get(self._key("session", session_id))
        if runtime_id is None:
            return None
        return await self.get(_text(runtime_id))

    async def live(self) -> list[SandboxRecord]:
        ids = sorted(_text(i) for i in await self._redis.smembers(self._key("live")))
        records = []
        for runtime_id in ids:
            record = await self.get(runtime_id)
            if record is None:
                await self._redis.srem(self._key("live"), runtime_id)
            else:
                records.append(record)
        return records

    # -- builds ---------------------------------------------------------------------------

    async def save_build(self, record: BuildRecord) -> None:
        finished = record.status not in (BuildStatus.QUEUED, BuildStatus.WORKING)
        await self._redis.set(
            self._key("build", record.build_id),
            record.model_dump_json(),
            ex=self._retention if finished else None,
        )

    async def get_build(self, build_id: str) -> BuildRecord | None:
        raw = await self._redis.get(self._key("build", build_id))
        return None if raw is None else BuildRecord.model_validate_json(raw)

    async def unfinished_builds(self) -> list[BuildRecord]:
        found = []
        async for key in self._redis.scan_iter(match=self._key("build", "*")):
            raw = await self._redis.get(key)
            if raw is None:
                continue
            record = BuildRecord.model_validate_json(raw)
            if record.status in (BuildStatus.QUEUED, BuildStatus.WORKING):
                found.append(record)
        return found


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value
