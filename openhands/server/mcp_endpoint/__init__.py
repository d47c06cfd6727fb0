"""The server's own MCP endpoint, `/mcp/mcp` (server-api §6.7), mounted lazily.

Importing the MCP SDK costs about a second, most of the server's start-up budget, and
most servers never see an MCP request before their first conversation starts. So `/mcp`
is mounted as ``LazyMCPApp``: it imports the SDK and builds the real streamable-HTTP app
(``tools.build_mcp_app``) on its first request, and runs the SDK's session manager in a
task of its own until the app shuts down.

Every request must carry a credential (checked before the SDK is even loaded), because
the tools act with the conversation owner's stored git-provider tokens and conversation
ids are not secret (they appear in URLs):
- the conversation's MCP key, ``conversation_mcp_key(secret, id)`` (an HMAC of the id
  under the server's ``jwt_secret``), as ``X-Session-API-Key`` or ``Authorization: Bearer``
  together with the ``X-OpenHands-ServerConversation-ID`` header. The server puts it into
  each conversation's MCP config, so the agent's MCP client sends it;
- or the server's ``SESSION_API_KEY`` when one is set;
- or, in JWT mode, the token of the user who owns the conversation.
Anything else is a 401 and reaches no tool.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import importlib
import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

if TYPE_CHECKING:
    from openhands.server.app_services import AppServices

logger = logging.getLogger(__name__)

_TOOLS_MODULE = "openhands.server.mcp_endpoint.tools"
CONVERSATION_HEADER = "x-openhands-serverconversation-id"
KEY_HEADER = "x-session-api-key"
# Used when the config has no jwt_secret (an app built from a bare config in tests): the
# keys then only hold for this process, which is as long as its conversations run anyway.
_PROCESS_SECRET = secrets.token_hex(32)


def key_secret(config: Any) -> str:
    secret = getattr(config, "jwt_secret", None)
    value = secret.get_secret_value() if secret is not None else ""
    return value or _PROCESS_SECRET


def conversation_mcp_key(secret: str, conversation_id: str) -> str:
    """The key a conversation's agent presents to `/mcp/mcp`; derived, so nothing is stored
    and it survives a server restart."""
    message = f"openhands-mcp:{conversation_id}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def presented_key(headers: Headers) -> str | None:
    key = headers.get(KEY_HEADER)
    if key:
        return key
    scheme, _, credentials = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    return None


async def is_authorized(services: AppServices, headers: Headers) -> bool:
    """Whether a request to `/mcp` carries one of the credentials listed above."""
    presented = presented_key(headers)
    if not presented:
        return False
    server_key = services.server_config.session_api_key
    if server_key and hmac.compare_digest(presented.encode(), server_key.encode()):
        return True
    conversation_id = headers.get(CONVERSATION_HEADER)
    if not conversation_id:
        return False
    expected = conversation_mcp_key(key_secret(services.config), conversation_id)
    if hmac.compare_digest(presented.encode(), expected.encode()):
        return True
    if services.server_config.user_auth != "jwt":
        return False
    return await _is_owner(services, headers, conversation_id)


async def _is_owner(services: AppServices, headers: Headers, conversation_id: str) -> bool:
    try:
        cookies = cookie_parser(headers.get("cookie", ""))
        user_auth = await services.user_auth_factory.create(headers, cookies)
        user_id = await user_auth.get_user_id()
        metadata = await services.conversation_store.get_metadata(conversation_id)
    except Exception:  # a bad token, an unknown or invalid conversation id
        return False
    return user_id is not None and metadata.user_id == user_id


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
        if scope["type"] == "http" and not await is_authorized(
            self._services(), Headers(scope=scope)
        ):
            response = JSONResponse({"detail": "Unauthorized"}, status_code=401)
            await response(scope, receive, send)
            return
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
