"""BuildService: image builds and image look-ups for clients without a ready image (§5).

A build runs on the engine that has the Dockerfile's first base image (nothing is pulled),
in a background task; its status lives in Redis. Builds that were running when the service
stopped are reported as ``INTERNAL_ERROR`` after the restart.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import gzip
import io
import secrets
import tarfile

from openhands.core.logger import openhands_logger as logger
from openhands.runtime.remote_api.engines import EnginePool, ImageDetails
from openhands.runtime.remote_api.errors import InvalidRequest, RuntimeApiError, UnknownBuild
from openhands.runtime.remote_api.models import BuildStatus
from openhands.runtime.remote_api.store import BuildRecord, StateStore

DOCKERFILE_NAMES = ("Dockerfile", "./Dockerfile")


class BuildService:
    def __init__(self, store: StateStore, pool: EnginePool) -> None:
        self._store = store
        self._pool = pool
        self._tasks: set[asyncio.Task[None]] = set()

    async def aclose(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def image(self, image: str) -> ImageDetails | None:
        return await self._pool.image_details(image)

    async def start(self, context_b64: bytes, target_image: str, tags: list[str]) -> str:
        context = _decode_context(context_b64)
        base = _first_base_image(context)
        engine = (await self._pool.engine_with_image(base) if base else None) or self._pool.names[0]
        record = BuildRecord(
            build_id=secrets.token_hex(8),
            target_image=target_image,
            tags=[t for t in tags if t != target_image],
            status=BuildStatus.QUEUED,
            engine=engine,
        )
        await self._store.save_build(record)
        task = asyncio.create_task(self._run(record, context))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return record.build_id

    async def _run(self, record: BuildRecord, context: bytes) -> None:
        assert record.engine is not None
        record.status = BuildStatus.WORKING
        await self._store.save_build(record)
        logger.info(
            "Building %s on %s (build %s)", record.target_image, record.engine, record.build_id
        )
        try:
            await self._pool.build(record.engine, context, [record.target_image, *record.tags])
            record.status = BuildStatus.SUCCESS
        except RuntimeApiError as exc:
            record.status, record.error = BuildStatus.FAILURE, str(exc)
        except Exception as exc:  # the status must never stay WORKING
            logger.exception("Build %s failed unexpectedly", record.build_id)
            record.status, record.error = BuildStatus.INTERNAL_ERROR, str(exc)
        await self._store.save_build(record)

    async def status(self, build_id: str) -> BuildRecord:
        record = await self._store.get_build(build_id)
        if record is None:
            raise UnknownBuild(f"No build {build_id}")
        return record

    async def reconcile(self) -> None:
        for record in await self._store.unfinished_builds():
            record.status = BuildStatus.INTERNAL_ERROR
            record.error = "the service restarted during the build"
            await self._store.save_build(record)


def _decode_context(context_b64: bytes) -> bytes:
    try:
        context = base64.b64decode(context_b64, validate=False)
    except (binascii.Error, ValueError) as exc:
        raise InvalidRequest(f"context is not base64: {exc}") from exc
    if not context.startswith(b"\x1f\x8b"):
        raise InvalidRequest("context is not a gzip tar")
    return context


def _first_base_image(context: bytes) -> str | None:
    """The image of the Dockerfile's first FROM line, if it can be read."""
    try:
        with tarfile.open(fileobj=io.BytesIO(context), mode="r:gz") as archive:
            for name in DOCKERFILE_NAMES:
                try:
                    member = archive.extractfile(name)
                except KeyError:
                    continue
                if member is not None:
                    return _from_image(member.read().decode(errors="replace"))
    except (tarfile.TarError, gzip.BadGzipFile, EOFError, OSError) as exc:
        raise InvalidRequest(f"context is not a gzip tar: {exc}") from exc
    return None


def _from_image(dockerfile: str) -> str | None:
    for line in dockerfile.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0].upper() == "FROM":
            image = next((w for w in words[1:] if not w.startswith("--")), None)
            if image is not None and "$" not in image:
                return image
    return None
