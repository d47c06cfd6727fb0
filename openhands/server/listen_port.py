"""The port this server really listens on, learnt from its first request.

The agent's MCP config points at the server's own `/mcp/mcp` endpoint through `mcp_host`,
whose default is `localhost:<port>` with `<port>` from the `port` environment variable (or
3000). A server started on another port without that variable (`uvicorn --port 3005`, a
test's free port) would send its agents to whatever listens on 3000, maybe another
OpenHands server with other tools. uvicorn does not tell the app its port, but every
request's ASGI scope holds the local address it arrived on, and no conversation can start
before a request: :class:`ListenPortRecorder` reads it once and, unless `mcp_host` was
configured explicitly, points `mcp_host` at it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI

from openhands.core.config import OpenHandsConfig

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]


def use_listen_port(config: OpenHandsConfig, port: int) -> None:
    """Point the default `mcp_host` at ``port``; an explicit `mcp_host` is left alone."""
    if "mcp_host" in config.model_fields_set:
        return
    config.mcp_host = f"localhost:{port}"


class ListenPortRecorder:
    """ASGI wrapper: calls ``on_port(port)`` once, with the local port of the first HTTP or
    WebSocket request (Socket.IO's included), then only passes requests through."""

    def __init__(self, app: ASGIApp, on_port: Callable[[int], None]) -> None:
        self.app = app
        self._on_port = on_port
        self._seen = False

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if not self._seen and scope["type"] in ("http", "websocket"):
            server = scope.get("server")
            if server and len(server) >= 2 and isinstance(server[1], int) and server[1] > 0:
                self._seen = True
                self._on_port(server[1])
        await self.app(scope, receive, send)


def record_listen_port(asgi_app: ASGIApp, base_app: FastAPI) -> ListenPortRecorder:
    """``asgi_app`` (the server's outermost app) behind a :class:`ListenPortRecorder` that
    points the default `mcp_host` of ``base_app``'s config at the server's real port."""

    def on_port(port: int) -> None:
        services = getattr(base_app.state, "services", None)
        if services is not None:
            use_listen_port(services.config, port)

    return ListenPortRecorder(asgi_app, on_port)
