"""Serve a conversation's routes on the node that runs it (several server nodes, Redis).

With the clustered conversation manager, a conversation's agent loop, event stream and
sandbox connection live on one node, while a proxy without sticky sessions sends each
request to any node. The routes under ``/api/conversations/{id}/…`` (files, uploads, git
changes, VS Code URL, web hosts, microagents, …) need that loop, so a node that does not
run it passes the request on to the node that does, unchanged, and relays the answer.
The owner checks who is calling as usual.

A conversation manager opts in by having ``owner_url(sid)`` (the other node's base URL, or
None to serve the request here); the standalone manager has none, so on one machine this
middleware only looks at the path. A forwarded request carries ``X-OpenHands-Forwarded``
and is never forwarded again.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Protocol

from starlette.types import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    import httpx

logger = logging.getLogger(__name__)

FORWARDED_HEADER = b"x-openhands-forwarded"
_CONVERSATION_ROUTE = re.compile(r"^/api/conversations/([A-Za-z0-9_-]+)/.+")
# Headers that belong to one hop, not to the request or response itself.
_HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
        b"host",
        b"content-length",
    }
)
_OWNER_DOWN = b'{"detail":"The node running this conversation did not answer"}'


class OwnerLookup(Protocol):
    def __call__(self, sid: str) -> Awaitable[str | None]: ...


class ConversationForwardingMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._client: httpx.AsyncClient | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        owner_url = await self._owner_url(scope)
        if owner_url is None:
            await self.app(scope, receive, send)
            return
        await self._forward(owner_url, scope, receive, send)

    async def _owner_url(self, scope: Scope) -> str | None:
        if scope["type"] != "http":
            return None
        match = _CONVERSATION_ROUTE.match(scope.get("path", ""))
        if match is None:
            return None
        if any(name == FORWARDED_HEADER for name, _ in scope.get("headers") or []):
            return None
        services = getattr(scope["app"].state, "services", None)
        lookup: OwnerLookup | None = getattr(
            getattr(services, "conversation_manager", None), "owner_url", None
        )
        if lookup is None:
            return None
        try:
            return await lookup(match.group(1))
        except Exception:  # Redis unreachable: serve here (the route answers as it can)
            logger.warning("Could not look up the node of %s", match.group(1), exc_info=True)
            return None

    async def _forward(self, base_url: str, scope: Scope, receive: Receive, send: Send) -> None:
        import httpx  # here: the entry point's import stays light (tests/unit/server/test_listen)

        if self._client is None:
            timeout = httpx.Timeout(connect=5.0, read=300.0, write=300.0, pool=10.0)
            self._client = httpx.AsyncClient(timeout=timeout)
        body = await _read_body(receive)
        headers = [
            (name, value)
            for name, value in scope.get("headers") or []
            if name.lower() not in _HOP_BY_HOP
        ]
        headers.append((FORWARDED_HEADER, b"1"))
        query = scope.get("query_string", b"")
        url = base_url + scope.get("raw_path", scope["path"].encode()).decode("latin-1")
        if query:
            url += "?" + query.decode("latin-1")
        request = self._client.build_request(scope["method"], url, headers=headers, content=body)
        try:
            response = await self._client.send(request, stream=True)
        except httpx.HTTPError as error:
            logger.warning("Forwarding %s to %s failed: %s", scope["path"], base_url, error)
            await _send_simple(send, 502, _OWNER_DOWN)
            return
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": [
                        (name, value)
                        for name, value in response.headers.raw
                        if name.lower() not in _HOP_BY_HOP
                    ],
                }
            )
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await response.aclose()


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message: Message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def _send_simple(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})
