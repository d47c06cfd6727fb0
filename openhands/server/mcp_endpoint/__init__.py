"""The server's own MCP endpoint, `/mcp/mcp` (server-api §6.7), mounted lazily.

Importing the MCP SDK costs about a second, most of the server's start-up budget, and
most servers never see an MCP request before their first conversation starts. So `/mcp`
is mounted as ``LazyMCPApp``: it imports the SDK and builds the real streamable-HTTP app
(``tools.build_mcp_app``) on its first request, and runs the SDK's session manager in a
task of its own until the app shuts down.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Receive, Scope, Send

if TYPE_CHECKING:
    from openhands.server.app_services import AppServices

logger = logging.getLogger(__name__)

_TOOLS_MODULE = "openhands.server.mcp_endpoint.tools"


class LazyMCPApp:
    """ASGI app for the `/mcp` mount that builds the MCP server when first asked."""

    def __init__(self, services: Callable[[], AppServices]) -> None:
        self._services = services
        self._app: ASGIApp | None = None
        self._lock = asyncio.Lock()
        self._stop = asyncio.Event()
        self._runner: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def started(self) -> bool:
        return self._app is not None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = self._app or await self._start()
        await app(scope, receive, send)

    async def _start(self) -> ASGIApp:
        async with self._lock:
            if self._app is not None:
                return self._app
            if self._closed:
                raise RuntimeError("The MCP endpoint is shut down")
            # In a thread: a second of imports must not stall the loop (and every socket).
            tools = await asyncio.to_thread(importlib.import_module, _TOOLS_MODULE)
            app, session_manager = tools.build_mcp_app(self._services)
            ready = asyncio.Event()

            async def serve() -> None:
                # The SDK's `run()` owns a task group that every request's server task
                # joins; it has to be entered and left in one task, which outlives requests.
                try:
                    async with session_manager.run():
                        ready.set()
                        await self._stop.wait()
                finally:
                    ready.set()

            self._runner = asyncio.create_task(serve(), name="mcp-session-manager")
            await ready.wait()
            if self._runner.done():
                self._runner.result()  # re-raises why the session manager did not start
                raise RuntimeError("The MCP session manager stopped at start")
            self._app = app
            logger.info("MCP endpoint /mcp/mcp started")
            return app

    async def aclose(self) -> None:
        """Stop the session manager (app shutdown); a no-op when never started."""
        async with self._lock:
            self._closed = True
            self._stop.set()
            if self._runner is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self._runner
                self._runner = None
            self._app = None
