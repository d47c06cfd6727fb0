"""Middleware, the SPA mount and the session key on a real process (server-api §2, §6.1,
§7.3; §10 items 13 (session key), 24 and 25).

The `guarded` server has a session API key, rate limiting on and a small built frontend.
Requests that must not be throttled by the flood tests come from other loopback
addresses (127.0.0.2, 127.0.0.3): the limiter counts per client IP. The rate-limit counts
are checked on the same app served by uvicorn in this process, with the limiter's clock
frozen: on the real clock a slow machine spreads a flood over several windows, so only a
loose lower bound could be asserted there.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from openhands.core.config import OpenHandsConfig
from openhands.server.app import create_app
from openhands.server.middleware import RateLimitMiddleware
from openhands.server.server_config import ServerConfig
from tests.server.helpers import start_server
from tests.server.server_process import ServerProcess
from tests.unit.server.conftest import serve

KEY = "conformance-session-key"
INDEX = "<!doctype html><html><body><div id=root>suite build</div></body></html>"


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory, llm) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("guarded")
    build = root / "build"
    (build / "assets").mkdir(parents=True)
    (build / "index.html").write_text(INDEX)
    (build / "assets" / "app-1a2b3c.js").write_text("console.log('suite');\n")
    server = start_server(
        root,
        llm,
        env={
            "SESSION_API_KEY": KEY,
            "RATE_LIMIT_ENABLED": "true",
            "SERVE_FRONTEND": "true",
            "FRONTEND_DIR": str(build),
        },
    )
    try:
        yield server
    finally:
        server.stop()


def _client(server: ServerProcess, source: str = "127.0.0.1", **kwargs) -> httpx.AsyncClient:
    return _client_at(server.url, source, **kwargs)


def _client_at(url: str, source: str = "127.0.0.1", **kwargs) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=source)
    return httpx.AsyncClient(base_url=url, transport=transport, timeout=60, **kwargs)


@pytest.fixture
async def keyed(guarded: ServerProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with _client(guarded, headers={"X-Session-API-Key": KEY}) as http:
        yield http


# --- item 13: the session key on sockets ------------------------------------------------------


async def test_socket_session_key(
    guarded: ServerProcess, keyed: httpx.AsyncClient, sockets
) -> None:
    conversation_id = uuid.uuid4().hex
    wrong = await sockets().refused(
        guarded.url, conversation_id=conversation_id, session_api_key="wrong"
    )
    assert wrong == {"message": "invalid_session_api_key"}
    absent = await sockets().refused(guarded.url, conversation_id=conversation_id)
    assert absent == {"message": "invalid_session_api_key"}
    literal_null = await sockets().refused(
        guarded.url, conversation_id=conversation_id, session_api_key="null"
    )
    assert literal_null == {"message": "invalid_session_api_key"}
    accepted = sockets()
    await accepted.connect(guarded.url, conversation_id=conversation_id, session_api_key=KEY)
    assert accepted.client.connected
    await accepted.close()  # its agent loop goes on starting; the server's stop closes it


async def test_rest_session_key(guarded: ServerProcess, keyed: httpx.AsyncClient) -> None:
    async with _client(guarded) as anonymous:
        for path in ("/api/settings", "/api/conversations", "/api/options/models"):
            refused = await anonymous.get(path)
            assert (refused.status_code, refused.json()) == (401, {"detail": "Unauthorized"})
        # 25: health routes answer without the key.
        assert (await anonymous.get("/alive")).json() == {"status": "ok"}
        assert (await anonymous.get("/health")).json() == "OK"
        info = (await anonymous.get("/server_info")).json()
        assert set(info) == {"uptime", "idle_time", "resources"}
        assert set(info["resources"]) == {"cpu_percent", "memory", "disk", "io"}
        assert set(info["resources"]["memory"]) == {"rss", "vms", "percent"}
    assert (await keyed.get("/api/settings")).status_code == 200


# --- item 24 --------------------------------------------------------------------------------------


async def test_cors(keyed: httpx.AsyncClient) -> None:
    for origin in ("http://localhost:3001", "https://127.0.0.1", "http://localhost"):
        response = await keyed.get("/api/options/config", headers={"Origin": origin})
        assert response.headers["access-control-allow-origin"] == origin
        assert response.headers["access-control-allow-credentials"] == "true"
        assert "origin" in response.headers["vary"].lower()
        preflight = await keyed.options(
            "/api/settings",
            headers={
                "Origin": origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type,x-session-api-key",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == origin
    for origin in ("http://evil.example", "http://localhost.evil.example"):
        response = await keyed.get("/api/options/config", headers={"Origin": origin})
        assert "access-control-allow-origin" not in response.headers
        preflight = await keyed.options(
            "/api/settings",
            headers={"Origin": origin, "Access-Control-Request-Method": "POST"},
        )
        assert preflight.status_code == 400
        assert preflight.text == "Disallowed CORS origin"


async def test_cache_headers(keyed: httpx.AsyncClient) -> None:
    asset = await keyed.get("/assets/app-1a2b3c.js")
    assert asset.status_code == 200
    assert asset.headers["cache-control"] == "public, max-age=2592000, immutable"
    for path in ("/api/options/config", "/", "/conversations/abc"):
        response = await keyed.get(path)
        assert response.headers["cache-control"] == "no-cache, no-store, must-revalidate, max-age=0"
        assert response.headers["pragma"] == "no-cache"
        assert response.headers["expires"] == "0"


class FrozenClock:
    """The rate limiter's clock and sleep: time stands still until a test moves it, and a
    delayed request does not move it either, so a flood arrives inside one window however
    slowly this machine serves it."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


@pytest.fixture
async def limited_server(tmp_path: Path) -> AsyncIterator[tuple[str, FrozenClock]]:
    """The app with its default limits (delay after 10, refuse after 20 per second and IP)
    and a frozen clock, served by uvicorn on 127.0.0.1 as in production."""
    build = tmp_path / "build"
    (build / "assets").mkdir(parents=True)
    (build / "index.html").write_text(INDEX)
    (build / "assets" / "app-1a2b3c.js").write_text("console.log('suite');\n")
    config = OpenHandsConfig(file_store="local", file_store_path=str(tmp_path / "store"))
    server = ServerConfig(rate_limit_enabled=True, serve_frontend=True, frontend_dir=str(build))
    assert (server.rate_limit_delay_after, server.rate_limit_reject_after) == (10, 20)
    app = create_app(config, server)
    clock = FrozenClock()
    (limiter,) = [m for m in app.user_middleware if m.cls is RateLimitMiddleware]
    limiter.kwargs.update(clock=clock, sleep=clock.sleep)
    async with serve(app) as url:
        yield url, clock


async def test_rate_limit(limited_server: tuple[str, FrozenClock]) -> None:
    url, clock = limited_server
    async with _client_at(url, source="127.0.0.2") as flooder:
        responses = await asyncio.gather(*(flooder.get("/alive") for _ in range(30)))
        statuses = [r.status_code for r in responses]
        # Within one window: the first 20 pass (the 11th to 20th after a 1 s delay), the
        # other 10 are refused.
        assert sorted(statuses) == [200] * 20 + [429] * 10, statuses
        assert clock.sleeps == [1] * 10
        limited = next(r for r in responses if r.status_code == 429)
        assert limited.json() == {"message": "Too many requests"}
        assert limited.headers["retry-after"] == "1"
        assert "access-control-allow-origin" not in limited.headers
        # Fingerprinted assets are never throttled, even right after the flood.
        assets = await asyncio.gather(*(flooder.get("/assets/app-1a2b3c.js") for _ in range(30)))
        assert {r.status_code for r in assets} == {200}
        assert (await flooder.get("/alive")).status_code == 429  # still the same window
    # Another client is not affected by that one's flood.
    async with _client_at(url, source="127.0.0.3") as bystander:
        assert (await bystander.get("/alive")).status_code == 200
    clock.now += 1.0  # the window slides past the flood
    async with _client_at(url, source="127.0.0.2") as flooder:
        assert (await flooder.get("/alive")).status_code == 200


# --- item 25 --------------------------------------------------------------------------------------


async def test_spa_fallback(keyed: httpx.AsyncClient) -> None:
    for path in (
        "/",
        f"/conversations/{uuid.uuid4().hex}",
        "/settings",
        "/settings/secrets",
        "/accept-tos",
        "/microagent-management",
    ):
        response = await keyed.get(path)
        assert response.status_code == 200, path
        assert response.text == INDEX
    missing_api = await keyed.get("/api/no-such-route")
    assert missing_api.status_code == 404 and missing_api.json() == {"detail": "Not Found"}
    posted = await keyed.post("/settings")
    assert (posted.status_code, posted.json()) == (405, {"detail": "Method Not Allowed"})


async def test_socket_io_is_never_rate_limited(guarded: ServerProcess) -> None:
    async with _client(guarded, source="127.0.0.3") as poller:
        handshakes = await asyncio.gather(
            *(
                poller.get("/socket.io/", params={"EIO": "4", "transport": "polling"})
                for _ in range(40)
            )
        )
    assert {r.status_code for r in handshakes} == {200}
    assert all(r.text.startswith("0{") for r in handshakes)  # engine.io OPEN packets
