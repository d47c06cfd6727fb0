"""CORS, cache headers and rate limiting (server-api §2)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from openhands.core.config import OpenHandsConfig
from openhands.server.middleware import RateLimitMiddleware
from openhands.server.server_config import ServerConfig
from tests.unit.server.conftest import build_app, running


async def test_localhost_origins_get_credentialed_cors(harness) -> None:
    for origin in ("http://localhost:3001", "https://127.0.0.1", "http://localhost"):
        response = await harness.client.get("/api/options/config", headers={"Origin": origin})
        assert response.headers["access-control-allow-origin"] == origin
        assert response.headers["access-control-allow-credentials"] == "true"
        assert "Origin" in response.headers["vary"]
    foreign = await harness.client.get(
        "/api/options/config", headers={"Origin": "https://evil.example"}
    )
    assert "access-control-allow-origin" not in foreign.headers
    preflight = await harness.client.options(
        "/api/settings",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 400
    assert preflight.text == "Disallowed CORS origin"


async def test_permitted_origins_replace_the_localhost_rule(
    app_config: OpenHandsConfig, workspace: Path
) -> None:
    server = ServerConfig(
        rate_limit_enabled=False,
        serve_frontend=False,
        permitted_cors_origins=["https://app.example"],
    )
    async with running(build_app(app_config, server, workspace), workspace) as h:
        ok = await h.client.get("/alive", headers={"Origin": "https://app.example"})
        assert ok.headers["access-control-allow-origin"] == "https://app.example"
        local = await h.client.get("/alive", headers={"Origin": "http://localhost:3000"})
        assert "access-control-allow-origin" not in local.headers


async def test_cache_headers(harness) -> None:
    response = await harness.client.get("/alive")
    assert response.headers["cache-control"] == "no-cache, no-store, must-revalidate, max-age=0"
    assert response.headers["pragma"] == "no-cache"
    assert response.headers["expires"] == "0"


class FakeClock:
    """The rate limiter's clock and sleep: time moves only when told (or slept)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def with_clock(app: FastAPI, clock: FakeClock) -> FastAPI:
    """``app`` with ``clock`` injected into its (real) RateLimitMiddleware."""
    entries = [m for m in app.user_middleware if m.cls is RateLimitMiddleware]
    assert len(entries) == 1
    entries[0].kwargs.update(clock=clock, sleep=clock.sleep)
    return app


async def test_rate_limit_rejects_over_twenty_per_second(
    app_config: OpenHandsConfig, workspace: Path
) -> None:
    clock = FakeClock()
    server = ServerConfig(serve_frontend=False, rate_limit_delay_after=100)
    async with running(with_clock(build_app(app_config, server, workspace), clock), workspace) as h:
        statuses = [(await h.client.get("/alive")).status_code for _ in range(21)]
        assert statuses[:20] == [200] * 20
        assert statuses[20] == 429
        limited = await h.client.get("/alive")
        assert limited.json() == {"message": "Too many requests"}
        assert limited.headers["retry-after"] == "1"
        assert "cache-control" not in limited.headers  # outermost layer
        # Assets are exempt.
        assert (await h.client.get("/assets/x.js")).status_code != 429
        clock.now += 1.0  # the window has passed
        assert (await h.client.get("/alive")).status_code == 200
        assert clock.sleeps == []


async def test_rate_limit_delays_over_ten(app_config: OpenHandsConfig, workspace: Path) -> None:
    clock = FakeClock()
    server = ServerConfig(
        serve_frontend=False, rate_limit_delay_after=2, rate_limit_reject_after=50
    )
    async with running(with_clock(build_app(app_config, server, workspace), clock), workspace) as h:
        for _ in range(2):
            assert (await h.client.get("/alive")).status_code == 200
        assert clock.sleeps == []
        assert (await h.client.get("/alive")).status_code == 200
        assert clock.sleeps == [1]  # the third request in the window waited a second


async def test_rate_limit_off_and_loopback_exemption(
    app_config: OpenHandsConfig, workspace: Path
) -> None:
    for server in (
        ServerConfig(serve_frontend=False, rate_limit_enabled=False),
        ServerConfig(serve_frontend=False, rate_limit_exempt_loopback=True),
    ):
        app = build_app(app_config, server, workspace)
        async with running(app, workspace) as h:
            statuses = {(await h.client.get("/alive")).status_code for _ in range(30)}
            assert statuses == {200}
