"""Placement in the runtime API service when an engine of the pool is down.

A dead engine holds no live sandboxes, so by load alone it would always be chosen. Real
parts: Redis, this machine's Docker engine, and an engine URL nothing listens on.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import docker
import pytest
from redis.asyncio import Redis

from openhands.runtime.remote_api.engines import EnginePool
from openhands.runtime.remote_api.errors import EngineError
from openhands.runtime.remote_api.sandboxes import SandboxService
from openhands.runtime.remote_api.store import StateStore
from tests.support.services import RedisService

LOCAL_ENGINE = "unix:///var/run/docker.sock"
# Sorts before the local engine, so a placement by load and name alone would pick it.
DEAD_ENGINE = "unix:///nonexistent-openhands-engine/docker.sock"


def _local_engine_answers() -> bool:
    try:
        docker.DockerClient(base_url=LOCAL_ENGINE).ping()
    except docker.errors.DockerException:
        return False
    return True


@pytest.fixture(scope="module")
def redis_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisService]:
    with RedisService(Path(tmp_path_factory.mktemp("redis"))) as service:
        yield service  # type: ignore[misc]


@pytest.fixture
async def store(redis_service: RedisService) -> AsyncIterator[StateStore]:
    state = StateStore(Redis.from_url(redis_service.url), f"placement-{uuid.uuid4().hex[:8]}")
    yield state
    await state.aclose()


async def test_a_dead_engine_is_skipped(store: StateStore) -> None:
    assert _local_engine_answers(), "the suite starts the local Docker engine (make docker-engine)"
    pool = EnginePool([DEAD_ENGINE, LOCAL_ENGINE])  # a dead engine does not stop the service
    try:
        assert not await pool.answers(DEAD_ENGINE)
        assert await pool.answers(LOCAL_ENGINE)
        service = SandboxService(store, pool)
        assert await service._least_loaded() == LOCAL_ENGINE
    finally:
        pool.close()


async def test_no_answering_engine_is_an_engine_error(store: StateStore) -> None:
    pool = EnginePool([DEAD_ENGINE])
    try:
        with pytest.raises(EngineError, match="No Docker engine of the pool answers"):
            await SandboxService(store, pool)._least_loaded()
    finally:
        pool.close()
