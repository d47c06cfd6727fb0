"""The FastAPI application factory and its lifespan (seed: server start-up).

``create_app(config=None)`` builds the app cheaply: middleware, routers, the SPA mount and
the Socket.IO handlers. Services (file store, conversation manager, user auth) are built in
the lifespan, so tests can vary the config and nothing heavy happens at import time.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any

import socketio
from fastapi import FastAPI

from openhands.core.config import OpenHandsConfig
from openhands.server import errors, socket_json
from openhands.server.app_services import AppServices
from openhands.server.conversation_manager.conversation_manager import ConversationManager
from openhands.server.conversation_manager.standalone_conversation_manager import (
    StandaloneConversationManager,
)
from openhands.server.errors import install_error_handlers
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
from openhands.server.routes.security import security_api_router
from openhands.server.routes.settings import settings_router
from openhands.server.routes.trajectory import trajectory_router
from openhands.server.server_config import ServerConfig
from openhands.server.static import frontend_app
from openhands.server.user_auth.default_user_auth import DefaultUserAuthFactory
from openhands.server.user_auth.user_auth import UserAuthFactory
from openhands.storage.factory import get_file_store_from_config
from openhands.storage.files import FileStore

logger = logging.getLogger(__name__)

VERSION = "0.59.0"
ManagerFactory = Callable[
    [socketio.AsyncServer, OpenHandsConfig, FileStore, ServerConfig], ConversationManager
]


def default_manager_factory(
    sio: socketio.AsyncServer, config: OpenHandsConfig, file_store: FileStore, server: ServerConfig
) -> ConversationManager:
    class_path = os.environ.get("CONVERSATION_MANAGER_CLASS")
    if class_path:
        module_name, _, class_name = class_path.rpartition(".")
        manager_cls = getattr(importlib.import_module(module_name), class_name)
        return manager_cls(sio, config, file_store)  # type: ignore[no-any-return]
    return StandaloneConversationManager(
        sio, config, file_store, cleanup_interval=server.cleanup_interval_seconds
    )


def create_sio(server_config: ServerConfig) -> socketio.AsyncServer:
    client_manager = None
    redis_host = os.environ.get("REDIS_HOST")
    if redis_host:
        password = os.environ.get("REDIS_PASSWORD")
        auth = f":{password}@" if password else ""
        client_manager = socketio.AsyncRedisManager(f"redis://{auth}{redis_host}")
    return socketio.AsyncServer(
        async_mode="asgi",
        cors_allowed_origins="*",
        max_http_buffer_size=server_config.max_upload_bytes,
        client_manager=client_manager,
        json=socket_json,
    )


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


def _user_auth_factory(config: OpenHandsConfig, server: ServerConfig) -> UserAuthFactory:
    if server.user_auth == "jwt":
        # PyJWT (and its crypto backends) load only in the mode that needs them.
        from openhands.server.user_auth.jwt_user_auth import JwtUserAuthFactory

        return JwtUserAuthFactory(config, server.auth_cookie_name)
    return DefaultUserAuthFactory(config)


def create_app(
    config: OpenHandsConfig | None = None,
    server_config: ServerConfig | None = None,
    *,
    sio: socketio.AsyncServer | None = None,
    manager_factory: ManagerFactory = default_manager_factory,
) -> FastAPI:
    """The FastAPI app. ``config=None`` loads config.toml + env when the app starts."""
    server = server_config or ServerConfig.from_env()
    sio = sio or create_sio(server)
    mcp_app = LazyMCPApp(lambda: app.state.services)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if config is None:
            from openhands.core.config import load_openhands_config

            app_config = load_openhands_config()
        else:
            app_config = config
        _widen_default_executor(app_config)
        file_store = get_file_store_from_config(app_config)
        manager = manager_factory(sio, app_config, file_store, server)
        app.state.services = AppServices(
            config=app_config,
            server_config=server,
            file_store=file_store,
            sio=sio,
            conversation_manager=manager,
            user_auth_factory=_user_auth_factory(app_config, server),
        )
        if _truthy(os.environ.get("OPENHANDS_WARMUP", "true")):
            # Imports for the first conversation, in the background: `/alive` and the first
            # requests do not wait for it (see openhands/server/warmup.py).
            from openhands.server.warmup import start_warmup

            start_warmup(app_config)
        async with manager:
            try:
                yield
            finally:
                # Stop taking tool calls before the conversations go away.
                await mcp_app.aclose()

    app = FastAPI(
        title="OpenHands",
        description="OpenHands: Code Less, Make More",
        version=VERSION,
        lifespan=lifespan,
    )
    app.state.sio = sio
    app.state.server_config = server
    install_error_handlers(app)

    # Added innermost first: the request meets RateLimit, CacheControl, CORS, BodySizeLimit,
    # Attach, token.
    app.add_middleware(GitHubTokenMiddleware)
    app.add_middleware(AttachConversationMiddleware)
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
        settings_router,
        trajectory_router,
    ):
        app.include_router(router)
    if server.app_mode == "oss":
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
