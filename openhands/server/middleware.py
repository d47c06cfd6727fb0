"""HTTP middleware, outermost first: RateLimit → CacheControl → LocalhostCORS →
BodySizeLimit → AttachConversation → GitHubToken → routes (server-api §2). Socket.IO
traffic never reaches them: the Socket.IO app sits in front of FastAPI.

``SandboxOriginMiddleware`` is different: it wraps the whole ASGI app, Socket.IO included
(``listen.py``), and keeps requests from sandbox containers to the MCP endpoint.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import re
import time
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable, Sequence
from urllib.parse import urlparse

from pydantic import SecretStr
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from openhands.integrations.provider import ProviderToken, ProviderType
from openhands.server.errors import ConversationForbiddenError, ConversationNotFoundError
from openhands.server.services.conversation_ids import check_conversation_id

ASSETS_PREFIX = "/assets"
LOCAL_HOSTS = ("localhost", "127.0.0.1")


def permitted_origins_from_env() -> tuple[str, ...]:
    """The origins of env ``PERMITTED_CORS_ORIGINS`` (comma-separated, blanks dropped)."""
    raw = os.environ.get("PERMITTED_CORS_ORIGINS", "")
    return tuple(origin.strip() for origin in raw.split(",") if origin.strip())


class LocalhostCORSMiddleware(CORSMiddleware):
    """Credentialed CORS for localhost origins (any port), or for an explicit origin list.

    Without ``permitted_origins`` the list comes from env ``PERMITTED_CORS_ORIGINS``
    (comma-separated, read when the middleware is built); an empty list means "localhost
    and 127.0.0.1 only". ``allow_origins`` is the explicit list as a tuple.
    """

    def __init__(self, app: ASGIApp, permitted_origins: Sequence[str] | None = None) -> None:
        if permitted_origins is None:
            permitted_origins = permitted_origins_from_env()
        origins = tuple(permitted_origins)
        super().__init__(
            app,
            allow_origins=list(origins),
            allow_credentials=True,
            allow_methods=["*"],
            allow_headers=["*"],
        )
        self.allow_origins = origins
        self.permitted = origins

    def is_allowed_origin(self, origin: str) -> bool:
        if self.permitted:
            return origin in self.permitted
        return urlparse(origin).hostname in LOCAL_HOSTS


class CacheControlMiddleware:
    """Fingerprinted assets are cached for 30 days; everything else never."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        immutable = scope["path"].startswith(ASSETS_PREFIX)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if immutable:
                    headers["Cache-Control"] = "public, max-age=2592000, immutable"
                else:
                    headers["Cache-Control"] = "no-cache, no-store, must-revalidate, max-age=0"
                    headers["Pragma"] = "no-cache"
                    headers["Expires"] = "0"
            await send(message)

        await self.app(scope, receive, send_with_headers)


class RateLimitMiddleware:
    """Per client IP, over a 1-second sliding window that counts every request: more than
    ``delay_after`` waits a second, more than ``reject_after`` is a 429."""

    def __init__(
        self,
        app: ASGIApp,
        enabled: bool = True,
        delay_after: int = 10,
        reject_after: int = 20,
        exempt_loopback: bool = False,
        window_seconds: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.app = app
        self.enabled = enabled
        self.delay_after = delay_after
        self.reject_after = reject_after
        self.exempt_loopback = exempt_loopback
        self.window = window_seconds
        # Injectable so that tests can drive the window without waiting in real time.
        self._clock = clock
        self._sleep = sleep
        self._history: dict[str, deque[float]] = defaultdict(deque)

    def _count(self, client: str) -> int:
        now = self._clock()
        history = self._history[client]
        while history and history[0] <= now - self.window:
            history.popleft()
        history.append(now)
        return len(history)

    def _exempt(self, scope: Scope, client: str) -> bool:
        if scope["path"].startswith(ASSETS_PREFIX):
            return True
        if self.exempt_loopback:
            try:
                return ipaddress.ip_address(client).is_loopback
            except ValueError:
                return False
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.enabled:
            await self.app(scope, receive, send)
            return
        client = scope["client"][0] if scope.get("client") else "unknown"
        if self._exempt(scope, client):
            await self.app(scope, receive, send)
            return
        count = self._count(client)
        if count > self.reject_after:
            response = JSONResponse(
                {"message": "Too many requests"}, status_code=429, headers={"Retry-After": "1"}
            )
            await response(scope, receive, send)
            return
        if count > self.delay_after:
            await self._sleep(1)
        await self.app(scope, receive, send)


class BodySizeLimitMiddleware:
    """Refuses request bodies over a size limit with 413, without reading them whole.

    The reference has no limit, so one request could make a conversation store (and
    send to the LLM) a message of any size. A declared ``Content-Length`` over the limit
    is refused at once; a chunked body is counted as it arrives and refused when it
    passes the limit. File uploads have their own, larger limit.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, upload_max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.upload_max_bytes = upload_max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.upload_max_bytes if scope["path"].endswith(_UPLOAD_SUFFIX) else self.max_bytes
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            if int(declared) <= _DRAIN_BYTES:
                await _drain(receive)
            await _too_large(limit)(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    if message.get("more_body", False):
                        await _drain(receive)
                    # Raised inside the route's body parsing: FastAPI answers it as is.
                    raise HTTPException(413, _too_large_text(limit))
            return message

        await self.app(scope, counted, send)


_UPLOAD_SUFFIX = "/upload-files"
# A refused body up to this size is read and dropped before the answer: a client still
# sending when the server closes the connection gets a reset instead of the 413.
_DRAIN_BYTES = 256 * 1024 * 1024


async def _drain(receive: Receive) -> None:
    budget = _DRAIN_BYTES
    while budget > 0:
        message = await receive()
        if message["type"] != "http.request":
            return
        budget -= len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def _too_large_text(limit: int) -> str:
    return f"Request body too large (limit {limit} bytes)"


def _too_large(limit: int) -> JSONResponse:
    # The client may still be sending: close the connection after answering.
    return JSONResponse(
        {"detail": _too_large_text(limit)}, status_code=413, headers={"Connection": "close"}
    )


# Per-conversation routes that work on the conversation's sandbox.
_ATTACHED_PATH = re.compile(
    r"^/api/conversations/(?P<sid>[^/]+)/"
    r"(config|vscode-url|web-hosts|list-files|select-file|upload-files|zip-directory"
    r"|git/changes|git/diff|submit-feedback|trajectory|security/.*)$"
)


class AttachConversationMiddleware:
    """Attaches the conversation to a per-conversation request (and detaches it after).

    Unknown conversations, or ones without a sandbox, are a 404; another user's is a 403.
    A request with a bad key, caller or id goes on unattached: the route's own guards
    answer it (401/400).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = _ATTACHED_PATH.match(scope["path"]) if scope["type"] == "http" else None
        if match is None:
            await self.app(scope, receive, send)
            return
        from openhands.server.errors import ApiError

        services = scope["app"].state.services
        request = Request(scope)
        sid = match.group("sid")
        try:
            check_conversation_id(sid)
            if not services.session_key_ok(request.headers.get("x-session-api-key")):
                raise LookupError
            user_auth = await services.user_auth_factory.create(request.headers, request.cookies)
            user_id = await user_auth.get_user_id()
        except (ApiError, LookupError):
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})["user_auth"] = user_auth
        try:
            metadata = await services.conversation_store.get_metadata(sid)
        except (FileNotFoundError, ValueError):
            metadata = None
        if metadata is not None and user_id is not None and metadata.user_id != user_id:
            error: ApiError = ConversationForbiddenError(sid)
            await JSONResponse(error.body(), error.status_code)(scope, receive, send)
            return
        owner = metadata.user_id if metadata is not None else user_id
        manager = services.conversation_manager
        conversation = await manager.attach_to_conversation(sid, owner)
        if conversation is None:
            error = ConversationNotFoundError(sid)
            await JSONResponse(error.body(), error.status_code)(scope, receive, send)
            return
        scope["state"]["conversation"] = conversation
        try:
            await self.app(scope, receive, send)
        finally:
            await manager.detach_from_conversation(conversation)


PROVIDER_TOKEN_HEADERS = ("x-git-provider-token", "x-github-token")


class GitHubTokenMiddleware:
    """Puts the caller's git-provider tokens into request state for `/api/user/*` and
    conversation creation: from a token header when given, else from stored secrets."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not (
            path.startswith("/api/user/") or path == "/api/conversations"
        ):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        header_token = next((headers[h] for h in PROVIDER_TOKEN_HEADERS if h in headers), None)
        state = scope.setdefault("state", {})
        if header_token:
            state["provider_tokens"] = {
                ProviderType.GITHUB: ProviderToken(token=SecretStr(header_token))
            }
        else:
            services = scope["app"].state.services
            request = Request(scope)
            try:
                user_auth = await services.user_auth_factory.create(
                    request.headers, request.cookies
                )
                tokens = await user_auth.get_provider_tokens()
            except Exception:  # unauthenticated: the route's guard answers with a 401
                tokens = None
            if tokens is not None:
                state["provider_tokens"] = dict(tokens)
        await self.app(scope, receive, send)


class ActivityMiddleware:
    """Remembers when the last HTTP request came in (`/server_info` idle time)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            services = getattr(scope["app"].state, "services", None)
            if services is not None:
                services.last_request_at = time.time()
        await self.app(scope, receive, send)


# --- requests from sandboxes -----------------------------------------------------------

SANDBOX_ALLOWED_PREFIX = "/mcp"
TRUSTED_ADDRESSES_ENV = "OPENHANDS_TRUSTED_PROXIES"
_SANDBOX_CONTAINER_PREFIX = "openhands-runtime-"
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _parse_ip(text: str) -> IPAddress | None:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _parse_networks(items: Sequence[str]) -> list[IPNetwork]:
    networks: list[IPNetwork] = []
    for item in items:
        try:
            networks.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            continue
    return networks


class DockerSandboxAddresses:
    """Which client addresses belong to sandboxes: the subnets of the Docker engine's bridge
    networks (minus their gateways, which are this host itself) and the addresses of the
    `openhands-runtime-*` containers on any network.

    The engine is asked in a worker thread, at most once per ``refresh_seconds`` and only
    for a client that is not loopback and not already known: a new sandbox on a known bridge
    is recognised at once, one on a new network after the next refresh. Without a Docker
    engine no address is a sandbox (LocalRuntime sandboxes are host processes)."""

    def __init__(self, refresh_seconds: float = 1.0, trusted: Sequence[str] | None = None) -> None:
        self.refresh_seconds = refresh_seconds
        if trusted is None:
            trusted = os.environ.get(TRUSTED_ADDRESSES_ENV, "").split(",")
        self.trusted = _parse_networks([t for t in trusted if t.strip()])
        self._subnets: list[IPNetwork] = []
        self._gateways: set[IPAddress] = set()
        self._containers: set[IPAddress] = set()
        self._refreshed_at: float | None = None
        self._lock = asyncio.Lock()

    def _known(self, address: IPAddress) -> bool:
        if address in self._containers:
            return True
        if address in self._gateways:
            return False
        return any(address in subnet for subnet in self._subnets)

    async def is_sandbox(self, host: str) -> bool:
        address = _parse_ip(host)
        if address is None or address.is_loopback:
            return False
        if any(address in network for network in self.trusted):
            return False
        if self._known(address):
            return True
        async with self._lock:
            now = time.monotonic()
            if self._refreshed_at is None or now - self._refreshed_at >= self.refresh_seconds:
                await asyncio.to_thread(self._refresh)
                self._refreshed_at = time.monotonic()
        return self._known(address)

    def _refresh(self) -> None:
        try:
            import docker  # the server only needs the engine once a non-local client calls

            client = docker.from_env(timeout=5)
            try:
                networks = client.api.networks()
                containers = client.api.containers(filters={"name": _SANDBOX_CONTAINER_PREFIX})
            finally:
                client.close()
        except Exception:  # no engine: nothing is a sandbox
            self._subnets, self._gateways, self._containers = [], set(), set()
            return
        subnets: list[IPNetwork] = []
        gateways: set[IPAddress] = set()
        for network in networks:
            if network.get("Driver") != "bridge":
                continue  # macvlan/ipvlan subnets are the LAN itself
            for entry in (network.get("IPAM") or {}).get("Config") or []:
                subnets.extend(_parse_networks([entry.get("Subnet") or ""]))
                gateway = _parse_ip(entry.get("Gateway") or "")
                if gateway is not None:
                    gateways.add(gateway)
        addresses: set[IPAddress] = set()
        for container in containers:
            names = container.get("Names") or []
            if not any(n.lstrip("/").startswith(_SANDBOX_CONTAINER_PREFIX) for n in names):
                continue
            attached = (container.get("NetworkSettings") or {}).get("Networks") or {}
            for settings in attached.values():
                for key in ("IPAddress", "GlobalIPv6Address"):
                    address = _parse_ip(settings.get(key) or "")
                    if address is not None:
                        addresses.add(address)
        self._subnets, self._gateways, self._containers = subnets, gateways, addresses


class SandboxOriginMiddleware:
    """Requests that come from a sandbox (see ``DockerSandboxAddresses``) may only reach the
    MCP endpoint, which checks its own key; everything else is a 403, Socket.IO included.

    When the server listens beyond loopback, a sandbox reaches it over the Docker bridge; the
    agent must not read settings, conversations or events through it. It wraps the whole ASGI
    app (outside Socket.IO), so no route or socket escapes it."""

    def __init__(self, app: ASGIApp, addresses: DockerSandboxAddresses | None = None) -> None:
        self.app = app
        self.addresses = addresses or DockerSandboxAddresses()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if scope["type"] not in ("http", "websocket") or not client:
            await self.app(scope, receive, send)
            return
        if not await self.addresses.is_sandbox(client[0]):
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        allowed = path == SANDBOX_ALLOWED_PREFIX or path.startswith(SANDBOX_ALLOWED_PREFIX + "/")
        if scope["type"] == "http" and allowed:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        response = JSONResponse(
            {"detail": "Forbidden: a sandbox may only call the MCP endpoint"}, status_code=403
        )
        await response(scope, receive, send)
