"""The FastAPI application factory and its lifespan (seed: server start-up).

``create_app(config=None)`` builds the app cheaply: middleware, routers, the SPA mount and
the Socket.IO handlers. Services (file store, conversation manager, user auth) are built in
the lifespan, so tests can vary the config and nothing heavy happens at import time. The
lifespan builds them with ``composition.build_services`` (the server config's extension
points) and keeps them on ``app.state.services``, where requests, socket handlers, the
`/mcp` endpoint and middleware find them.

Reference names: ``app`` (this process's app, built by ``create_app()`` on first access and
then kept; ``openhands.server.listen.base_app`` is the same object), ``mcp_app`` (its
`/mcp` mount), ``combine_lifespans`` and ``authentication_error_handler``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any

import socketio
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from openhands.controller.agent import register_custom_agents
from openhands.core.config import OpenHandsConfig
from openhands.server import errors
from openhands.server.app_services import (
    load_app_config,
    pop_running,
    push_running,
    retire_adapter_objects,
)
from openhands.server.cluster_forwarding import ConversationForwardingMiddleware
from openhands.server.composition import (
    ManagerFactory,
    build_services,
    create_sio,
)
from openhands.server.docker_sandboxes import (
    close_docker_sandboxes,
    start_docker_sandboxes,
    wants_docker_sandboxes,
)
from openhands.server.errors import install_error_handlers
from openhands.server.exposure import host_network_refusal
from openhands.server.listen_socket import register_socket_handlers
from openhands.server.mcp_endpoint import LazyMCPApp
from openhands.server.middleware import (
    ActivityMiddleware,
    AttachConversationMiddleware,
    BodySizeLimitMiddleware,
    CacheControlMiddleware,
    GitHubTokenMiddleware,
    LocalhostCORSMiddleware,
    RateLimitMiddleware,
    SandboxOriginMiddleware,
)
from openhands.server.routes.conversation import conversation_api_router
from openhands.server.routes.feedback import feedback_api_router
from openhands.server.routes.files import files_api_router
from openhands.server.routes.git import github_api_router
from openhands.server.routes.health import health_router
from openhands.server.routes.manage_conversations import manage_conversation_api_router
from openhands.server.routes.public import public_api_router
from openhands.server.routes.resolver import resolver_api_router
from openhands.server.routes.secrets import app as secrets_router
from openhands.server.routes.security import security_api_router
from openhands.server.routes.settings import settings_router
from openhands.server.routes.trajectory import trajectory_router
from openhands.server.routes.vscode_image import vscode_image_router
from openhands.server.server_config import (
    ServerConfig,
    load_server_config,
)
from openhands.server.static import frontend_app
from openhands.server.types import AppMode

logger = logging.getLogger(__name__)

VERSION = "0.59.0"
Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]


def combine_lifespans(*lifespans: Lifespan) -> Lifespan:
    """One lifespan that enters ``lifespans`` in order and leaves them in reverse."""

    @asynccontextmanager
    async def combined(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for lifespan in lifespans:
                await stack.enter_async_context(lifespan(app))
            yield

    return combined


async def authentication_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """A git provider refused the caller's token (``AuthenticationError``): 401 with the
    message as the JSON body. The app answers it (and the other provider failures) through
    ``errors.ERROR_TABLE``; this is the reference's name for that answer."""
    error = errors.provider_failure(exc)
    return JSONResponse(status_code=error.status_code, content=error.body())


def _widen_default_executor(config: OpenHandsConfig) -> None:
    """Give the loop's `asyncio.to_thread` pool room for sandboxes that block a thread for
    as long as they take to start or stop (tens of seconds). With the default pool (CPU
    count + 4 threads) a few starting conversations would stall every request that reads a
    file. Threads are only created when needed."""
    workers = max(64, 8 * config.max_concurrent_conversations)
    asyncio.get_running_loop().set_default_executor(
        ThreadPoolExecutor(max_workers=workers, thread_name_prefix="openhands-io")
    )


def _truthy(value: str) -> bool:
    return value.strip().lower() not in ("0", "false", "no", "off", "")


def create_app(
    config: OpenHandsConfig | None = None,
    server_config: ServerConfig | None = None,
    *,
    sio: socketio.AsyncServer | None = None,
    manager_factory: ManagerFactory | None = None,
) -> FastAPI:
    """The FastAPI app. ``config=None`` loads config.toml + env when the app starts;
    ``server_config=None`` is ``load_server_config()`` (env, ``OPENHANDS_CONFIG_CLS``)."""
    server = server_config or load_server_config()
    sio = sio or create_sio(server)
    mcp_app = LazyMCPApp(lambda: app.state.services)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app_config = load_app_config() if config is None else config
        refusal = host_network_refusal(app_config, server)
        if refusal:
            raise RuntimeError(refusal)
        # `/api/options/agents` lists the registered agents, the config's custom ones too.
        register_custom_agents(app_config)
        _widen_default_executor(app_config)
        # One manager per process: what the compatibility adapter built while no app ran
        # goes (or, when conversations run on it, the start is refused).
        await retire_adapter_objects()
        services = await build_services(app_config, server, sio, manager_factory)
        manager = services.conversation_manager
        app.state.services = services
        if _truthy(os.environ.get("OPENHANDS_WARMUP", "true")):
            # Imports for the first conversation, in the background: `/alive` and the first
            # requests do not wait for it (see openhands/server/warmup.py).
            from openhands.server.warmup import start_warmup

            start_warmup(app_config)
        sandboxes = None
        if wants_docker_sandboxes(manager, app_config):
            # Warm pool and the clean-up after earlier processes (in the background).
            sandboxes = await start_docker_sandboxes(
                app_config, manager, services.file_store, services.conversation_store
            )
        try:
            async with manager:
                push_running(services)
                try:
                    yield
                finally:
                    pop_running(services)
                    # Stop taking tool calls before the conversations go away.
                    await mcp_app.aclose()
        finally:
            if sandboxes is not None:
                # After the conversations closed: the pool's idle sandboxes go too.
                await close_docker_sandboxes(*sandboxes)
        if "openhands.storage.sql.database" in sys.modules:  # only when SQL stores were used
            from openhands.storage.sql.database import dispose_database

            await dispose_database()

    app = FastAPI(
        title="OpenHands",
        description="OpenHands: Code Less, Make More",
        version=VERSION,
        lifespan=lifespan,
    )
    app.state.sio = sio
    app.state.server_config = server
    app.state.mcp_app = mcp_app
    install_error_handlers(app)

    # Added innermost first: the request meets RateLimit, CacheControl, CORS, BodySizeLimit,
    # Forwarding, Attach, token. Forwarding passes a conversation's routes to the node running
    # it (clustered manager only), before Attach looks for the conversation here.
    app.add_middleware(GitHubTokenMiddleware)
    app.add_middleware(AttachConversationMiddleware)
    app.add_middleware(ConversationForwardingMiddleware)
    app.add_middleware(
        BodySizeLimitMiddleware,
        max_bytes=server.max_request_body_bytes,
        upload_max_bytes=server.max_upload_body_bytes,
    )
    app.add_middleware(LocalhostCORSMiddleware, permitted_origins=server.permitted_cors_origins)
    app.add_middleware(CacheControlMiddleware)
    app.add_middleware(ActivityMiddleware)
    app.add_middleware(
        RateLimitMiddleware,
        enabled=server.rate_limit_enabled,
        delay_after=server.rate_limit_delay_after,
        reject_after=server.rate_limit_reject_after,
        exempt_loopback=server.rate_limit_exempt_loopback,
    )

    # Spec mount order: `/mcp` first, then the routers, health, and the SPA last. A mount of
    # its own, so the `/api` guards (session key, user) do not apply to it.
    app.mount("/mcp", mcp_app, name="mcp")
    for router in (
        public_api_router,
        files_api_router,
        security_api_router,
        feedback_api_router,
        conversation_api_router,
        manage_conversation_api_router,
        resolver_api_router,
        settings_router,
        secrets_router,
        trajectory_router,
        vscode_image_router,
    ):
        app.include_router(router)
    if server.app_mode == AppMode.OSS:
        app.include_router(github_api_router)
    app.include_router(health_router)
    if server.serve_frontend:
        app.mount("/", frontend_app(server.frontend_dir), name="frontend")
    install_openapi_errors(app)

    register_socket_handlers(sio, lambda: app.state.services)
    return app


# Errors of the file routes (whose module declares none itself), by (method, path).
_CONVERSATION = "/api/conversations/{conversation_id}"
_ROUTE_ERRORS: dict[tuple[str, str], errors.Responses] = {
    ("get", f"{_CONVERSATION}/list-files"): {
        404: errors.error("No such conversation or sandbox, or the runtime is not ready"),
        500: errors.error("Listing the files failed"),
    },
    ("get", f"{_CONVERSATION}/select-file"): {
        **errors.ATTACHED_RESPONSES,
        415: errors.error("A binary file"),
        500: errors.error("Opening the file failed"),
    },
    ("post", f"{_CONVERSATION}/upload-files"): errors.ATTACHED_RESPONSES,
    ("get", f"{_CONVERSATION}/zip-directory"): {
        **errors.ATTACHED_RESPONSES,
        500: errors.error("Zipping the workspace failed"),
    },
    ("get", f"{_CONVERSATION}/git/changes"): {
        404: errors.error("No such conversation or sandbox, or not a git repository"),
        500: errors.error("Reading the git state failed"),
    },
    ("get", f"{_CONVERSATION}/git/diff"): {
        **errors.ATTACHED_RESPONSES,
        500: errors.error("Reading the diff failed"),
    },
}
_ERROR_MODELS = (
    errors.DetailErrorBody,
    errors.ErrorTextBody,
    errors.StatusErrorBody,
    errors.MessageErrorBody,
)


def _response_object(doc: dict[str, Any]) -> dict[str, Any]:
    if "content" in doc:
        return {"description": doc["description"], "content": doc["content"]}
    ref = f"#/components/schemas/{doc['model'].__name__}"
    return {
        "description": doc["description"],
        "content": {"application/json": {"schema": {"$ref": ref}}},
    }


def add_error_responses(schema: dict[str, Any]) -> dict[str, Any]:
    """Declare in an OpenAPI document the errors each operation can answer with, derived
    from what the operation takes: the `/api` guards (a `X-Session-API-Key` header: 401), a
    conversation id in the path (400, 403), a request body (413), and the rate limiter
    (429) for all. Route-specific errors are declared on the routes themselves
    (``responses=``) or, for the file routes, in ``_ROUTE_ERRORS``; declarations win."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    for model in _ERROR_MODELS:
        components.setdefault(
            model.__name__, model.model_json_schema(ref_template="#/components/schemas/{model}")
        )
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            parameters = operation.get("parameters", [])
            names = {(p.get("in"), str(p.get("name", "")).lower()) for p in parameters}
            found: errors.Responses = {}
            if ("header", "x-session-api-key") in names:
                found.update(errors.GUARD_RESPONSES)
            if ("path", "conversation_id") in names:
                found.update(errors.CONVERSATION_ID_RESPONSES)
            if "requestBody" in operation:
                found.update(errors.BODY_RESPONSES)
            found.update(errors.RATE_LIMIT_RESPONSES)
            found.update(_ROUTE_ERRORS.get((method, path), {}))
            responses = operation["responses"]
            for status, doc in found.items():
                responses.setdefault(str(status), _response_object(doc))
    return schema


def install_openapi_errors(app: FastAPI) -> None:
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        return add_error_responses(generate())  # idempotent on FastAPI's cached document

    app.openapi = openapi  # type: ignore[method-assign]


def create_asgi_app(
    config: OpenHandsConfig | None = None,
    server_config: ServerConfig | None = None,
    **kwargs: object,
) -> SandboxOriginMiddleware:
    """FastAPI behind Socket.IO: `/socket.io/` goes to Socket.IO, the rest to FastAPI."""
    base_app = create_app(config, server_config, **kwargs)  # type: ignore[arg-type]
    return SandboxOriginMiddleware(socketio.ASGIApp(base_app.state.sio, other_asgi_app=base_app))


_module_app: FastAPI | None = None

if TYPE_CHECKING:  # served by __getattr__
    app: FastAPI
    mcp_app: LazyMCPApp


def __getattr__(name: str) -> Any:
    """``app`` and ``mcp_app``, built on first access (importing this module stays cheap
    and starts nothing)."""
    global _module_app
    if name == "app":
        if _module_app is None:
            _module_app = create_app()
        return _module_app
    if name == "mcp_app":
        return __getattr__("app").state.mcp_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
