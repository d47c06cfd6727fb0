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

import socketio
from fastapi import FastAPI

from openhands.core.config import OpenHandsConfig
from openhands.server import socket_json
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

    register_socket_handlers(sio, lambda: app.state.services)
    return app


def create_asgi_app(
    config: OpenHandsConfig | None = None,
    server_config: ServerConfig | None = None,
    **kwargs: object,
) -> socketio.ASGIApp:
    """FastAPI behind Socket.IO: `/socket.io/` goes to Socket.IO, the rest to FastAPI."""
    base_app = create_app(config, server_config, **kwargs)  # type: ignore[arg-type]
    return socketio.ASGIApp(base_app.state.sio, other_asgi_app=base_app)
