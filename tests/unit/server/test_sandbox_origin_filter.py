"""SandboxOriginMiddleware and the start-up exposure warning, without a Docker engine
(the engine's answer is replaced by fixed networks; the real one is in
tests/server/test_sandbox_origin.py)."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from openhands.server.exposure import bind_host, exposure_warning, is_loopback
from openhands.server.middleware import DockerSandboxAddresses, SandboxOriginMiddleware
from openhands.server.server_config import ServerConfig


class FixedAddresses(DockerSandboxAddresses):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(trusted=kwargs.pop("trusted", []), **kwargs)
        self.refreshes = 0

    def _refresh(self) -> None:
        self.refreshes += 1
        self._subnets = [ipaddress.ip_network("172.17.0.0/16")]
        self._gateways = {ipaddress.ip_address("172.17.0.1")}
        self._containers = {ipaddress.ip_address("10.9.8.7")}


async def call(middleware: SandboxOriginMiddleware, client: str, path: str, kind: str = "http"):
    sent: list[dict[str, Any]] = []
    reached: list[str] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    middleware.app = inner
    scope = {"type": kind, "path": path, "client": (client, 5555), "headers": []}
    await middleware(scope, receive, send)
    return reached, sent


@pytest.mark.parametrize(
    ("client", "path", "passes"),
    [
        ("127.0.0.1", "/api/settings", True),
        ("::1", "/api/settings", True),
        ("172.17.0.1", "/api/settings", True),  # the gateway is this host
        ("192.168.1.20", "/api/settings", True),  # a LAN client
        ("172.17.0.5", "/api/settings", False),
        ("::ffff:172.17.0.5", "/api/conversations", False),
        ("10.9.8.7", "/socket.io/", False),  # a sandbox container on another network
        ("172.17.0.5", "/mcp/mcp", True),
        ("172.17.0.5", "/mcpx", False),
    ],
)
async def test_sandboxes_reach_only_mcp(client: str, path: str, passes: bool) -> None:
    middleware = SandboxOriginMiddleware(lambda *a: None, FixedAddresses())  # type: ignore[arg-type]
    reached, sent = await call(middleware, client, path)
    if passes:
        assert reached == [path] and sent == []
    else:
        assert reached == []
        assert sent[0]["status"] == 403


async def test_websockets_from_sandboxes_are_closed() -> None:
    middleware = SandboxOriginMiddleware(lambda *a: None, FixedAddresses())  # type: ignore[arg-type]
    reached, sent = await call(middleware, "172.17.0.5", "/socket.io/", kind="websocket")
    assert reached == [] and sent == [{"type": "websocket.close", "code": 1008}]


async def test_trusted_proxies_and_refresh_rate() -> None:
    addresses = FixedAddresses(trusted=["172.17.0.0/28"], refresh_seconds=3600)
    assert not await addresses.is_sandbox("172.17.0.5")  # trusted: never asks the engine
    assert addresses.refreshes == 0
    assert await addresses.is_sandbox("172.17.0.99")
    assert not await addresses.is_sandbox("192.168.1.20")
    assert not await addresses.is_sandbox("192.168.1.21")
    assert addresses.refreshes == 1  # unknown clients do not hammer the engine
    assert not await addresses.is_sandbox("127.0.0.1")


def test_bind_host_and_warning() -> None:
    assert bind_host(["uvicorn", "app", "--host", "0.0.0.0"], {}) == "0.0.0.0"
    assert bind_host(["uvicorn", "app", "--host=::"], {}) == "::"
    assert bind_host(["uvicorn", "app"], {"UVICORN_HOST": "10.0.0.2"}) == "10.0.0.2"
    assert bind_host(["uvicorn", "app"], {}) == "127.0.0.1"
    assert is_loopback("localhost") and is_loopback("127.0.0.1") and is_loopback("[::1]")
    assert not is_loopback("0.0.0.0") and not is_loopback("myhost")

    open_config = ServerConfig()
    assert exposure_warning("127.0.0.1", open_config) is None
    warning = exposure_warning("0.0.0.0", open_config)
    assert warning is not None and "WITHOUT AUTHENTICATION" in warning
    assert exposure_warning("0.0.0.0", ServerConfig(session_api_key="k")) is None
    assert exposure_warning("0.0.0.0", ServerConfig(user_auth="jwt")) is None
