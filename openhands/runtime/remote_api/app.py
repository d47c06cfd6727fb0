"""The Runtime API as a FastAPI app (remote-runtime.md §4). Routes stay thin: parse, call a
service, return a model; errors map to HTTP statuses in one table at the bottom."""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, FastAPI, File, Form, Query, Request, UploadFile
from fastapi.responses import JSONResponse
from redis.asyncio import Redis
from starlette.types import ASGIApp, Receive, Scope, Send

from openhands.runtime.remote_api.builds import BuildService
from openhands.runtime.remote_api.engines import EnginePool
from openhands.runtime.remote_api.errors import (
    EngineError,
    ImageNotAvailable,
    InvalidRequest,
    RuntimeApiError,
    RuntimeConflict,
    UnknownBuild,
    UnknownRuntime,
)
from openhands.runtime.remote_api.models import (
    ActionDone,
    BuildStarted,
    BuildStatusResponse,
    ImageExistsResponse,
    ImageInfo,
    RegistryPrefixResponse,
    RuntimeIdRequest,
    RuntimeResponse,
    RuntimeStatusResponse,
    SandboxStatus,
    SessionResponse,
    StartRequest,
)
from openhands.runtime.remote_api.sandboxes import SandboxService
from openhands.runtime.remote_api.settings import ServiceSettings
from openhands.runtime.remote_api.store import SandboxRecord, StateStore

API_KEY_HEADER = b"x-api-key"

_ERROR_STATUS: dict[type[RuntimeApiError], int] = {
    UnknownRuntime: 404,
    UnknownBuild: 404,
    RuntimeConflict: 409,
    ImageNotAvailable: 400,
    InvalidRequest: 400,
    EngineError: 503,
}


class ApiKeyMiddleware:
    """401 for every HTTP request without the service's ``X-API-Key``."""

    def __init__(self, app: ASGIApp, api_key: str) -> None:
        self.app = app
        self.api_key = api_key.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            sent = dict(scope.get("headers") or []).get(API_KEY_HEADER, b"")
            if not hmac.compare_digest(sent, self.api_key):
                response = JSONResponse({"detail": "Invalid API key"}, status_code=401)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


@dataclass(frozen=True)
class Services:
    sandboxes: SandboxService
    builds: BuildService
    registry_prefix: str


def _services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(_services)]


def _runtime_response(record: SandboxRecord) -> RuntimeResponse:
    assert record.url is not None and record.session_api_key is not None
    return RuntimeResponse(
        runtime_id=record.runtime_id,
        session_id=record.session_id,
        url=record.url,
        session_api_key=record.session_api_key,
        status=record.status.value,
    )


def _session_response(record: SandboxRecord) -> SessionResponse:
    if record.status in (SandboxStatus.RUNNING, SandboxStatus.PAUSED):
        return SessionResponse(
            session_id=record.session_id,
            status=record.status.value,
            runtime_id=record.runtime_id,
            url=record.url,
            session_api_key=record.session_api_key,
            work_hosts={},
        )
    # A failed sandbox is as good as stopped to a client: it starts a new one.
    status = SandboxStatus.STOPPED if record.status == SandboxStatus.FAILED else record.status
    return SessionResponse(session_id=record.session_id, status=status.value)


def create_app(settings: ServiceSettings) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = StateStore(Redis.from_url(settings.redis_url), settings.namespace)
        await store.ping()
        pool = EnginePool(settings.engines, settings.tls_cert_path)
        sandboxes = SandboxService(
            store, pool, settings.publish_host, settings.limits, settings.warm_pool_size
        )
        builds = BuildService(store, pool)
        await builds.reconcile()
        await sandboxes.reconcile()  # also removes the warm sandboxes of an earlier run
        sandboxes.warm.start()
        app.state.services = Services(sandboxes, builds, settings.registry_prefix)
        try:
            yield
        finally:
            await builds.aclose()
            await sandboxes.aclose()
            pool.close()
            await store.aclose()

    app = FastAPI(title="OpenHands Runtime API", lifespan=lifespan)
    app.add_middleware(ApiKeyMiddleware, api_key=settings.api_key)

    @app.exception_handler(RuntimeApiError)
    async def runtime_api_error(_request: Request, exc: RuntimeApiError) -> JSONResponse:
        status = next((s for t, s in _ERROR_STATUS.items() if isinstance(exc, t)), 500)
        return JSONResponse({"detail": str(exc)}, status_code=status)

    @app.post("/start")
    async def start(body: StartRequest, services: ServicesDep) -> RuntimeResponse:
        return _runtime_response(await services.sandboxes.start(body))

    @app.get("/sessions/{session_id}")
    async def session(session_id: str, services: ServicesDep) -> SessionResponse:
        return _session_response(await services.sandboxes.for_session(session_id))

    @app.get("/runtime/{runtime_id}")
    async def runtime(runtime_id: str, services: ServicesDep) -> RuntimeStatusResponse:
        record, pod_status = await services.sandboxes.pod_status(runtime_id)
        return RuntimeStatusResponse(
            runtime_id=record.runtime_id, session_id=record.session_id, pod_status=pod_status
        )

    @app.post("/pause")
    async def pause(body: RuntimeIdRequest, services: ServicesDep) -> ActionDone:
        record = await services.sandboxes.pause(body.runtime_id)
        return ActionDone(runtime_id=record.runtime_id, status=record.status.value)

    @app.post("/resume")
    async def resume(body: RuntimeIdRequest, services: ServicesDep) -> ActionDone:
        record = await services.sandboxes.resume(body.runtime_id)
        return ActionDone(runtime_id=record.runtime_id, status=record.status.value)

    @app.post("/stop")
    async def stop(body: RuntimeIdRequest, services: ServicesDep) -> ActionDone:
        record = await services.sandboxes.stop(body.runtime_id)
        return ActionDone(runtime_id=record.runtime_id, status=record.status.value)

    @app.get("/registry_prefix")
    async def registry_prefix(services: ServicesDep) -> RegistryPrefixResponse:
        return RegistryPrefixResponse(registry_prefix=services.registry_prefix)

    @app.get("/image_exists")
    async def image_exists(
        image: Annotated[str, Query(min_length=1)], services: ServicesDep
    ) -> ImageExistsResponse:
        details = await services.builds.image(image)
        if details is None:
            return ImageExistsResponse(exists=False)
        info = ImageInfo(upload_time=details.created, image_size_bytes=details.size_bytes)
        return ImageExistsResponse(exists=True, image=info)

    @app.post("/build")
    async def build(
        context: Annotated[UploadFile, File(description="base64 text of a gzip tar")],
        target_image: Annotated[str, Form(min_length=1)],
        services: ServicesDep,
        tags: Annotated[list[str] | None, Form()] = None,
    ) -> BuildStarted:
        build_id = await services.builds.start(await context.read(), target_image, tags or [])
        return BuildStarted(build_id=build_id)

    @app.get("/build_status")
    async def build_status(
        build_id: Annotated[str, Query(min_length=1)], services: ServicesDep
    ) -> BuildStatusResponse:
        record = await services.builds.status(build_id)
        return BuildStatusResponse(
            build_id=record.build_id,
            status=record.status,
            image=record.target_image if record.status == "SUCCESS" else None,
            error=record.error,
        )

    return app
