"""Host-network sandboxes need an authenticated server.

A Docker sandbox on the host's network reaches the server from 127.0.0.1, where the sandbox
origin check (which knows sandboxes by their bridge addresses) sees the user. The server
refuses to start with such sandboxes unless SESSION_API_KEY or the JWT mode is on; with it
on, a caller on loopback without the key, as such a sandbox is, gets 401 from the API.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import socketio

from openhands.core.config import OpenHandsConfig
from openhands.server.exposure import host_network_refusal, uses_host_network
from openhands.server.middleware import SandboxOriginMiddleware
from openhands.server.server_config import ServerConfig
from tests.unit.server.conftest import build_app, serve


def _config(tmp_path: Path, runtime: str = "docker", **sandbox: object) -> OpenHandsConfig:
    config = OpenHandsConfig(
        file_store="local", file_store_path=str(tmp_path / "store"), runtime=runtime
    )
    for name, value in sandbox.items():
        setattr(config.sandbox, name, value)
    return config


def _server(**kwargs: object) -> ServerConfig:
    return ServerConfig(
        rate_limit_enabled=False, serve_frontend=False, cleanup_interval_seconds=3600, **kwargs
    )


@pytest.mark.parametrize(
    ("runtime", "sandbox", "host_network"),
    [
        ("docker", {}, False),
        ("docker", {"use_host_network": True}, True),
        ("eventstream", {"use_host_network": True}, True),
        ("docker", {"docker_runtime_kwargs": {"network_mode": "host"}}, True),
        ("docker", {"docker_runtime_kwargs": {"network_mode": "bridge"}}, False),
        # Not a Docker sandbox: the flag has no effect there.
        ("remote", {"use_host_network": True}, False),
    ],
)
def test_which_configs_put_sandboxes_on_the_host_network(
    tmp_path: Path, runtime: str, sandbox: dict[str, object], host_network: bool
) -> None:
    assert uses_host_network(_config(tmp_path, runtime, **sandbox)) is host_network


def test_host_network_needs_authentication(tmp_path: Path) -> None:
    config = _config(tmp_path, use_host_network=True)
    refusal = host_network_refusal(config, _server())
    assert refusal is not None and "SESSION_API_KEY" in refusal
    assert host_network_refusal(config, _server(session_api_key="k3y")) is None
    assert host_network_refusal(config, _server(user_auth="jwt")) is None
    assert host_network_refusal(_config(tmp_path), _server()) is None


async def test_the_app_does_not_start_unauthenticated_with_host_network(
    tmp_path: Path, workspace: Path
) -> None:
    app = build_app(_config(tmp_path, use_host_network=True), _server(), workspace)
    with pytest.raises(RuntimeError, match="host network"):
        async with app.router.lifespan_context(app):
            pass


async def test_with_a_session_key_loopback_callers_without_it_get_nothing(
    tmp_path: Path, workspace: Path
) -> None:
    app = build_app(
        _config(tmp_path, use_host_network=True), _server(session_api_key="k3y"), workspace
    )
    # The stack `listen.py` serves, over real TCP on 127.0.0.1: where a host-network
    # sandbox's requests come from.
    asgi = SandboxOriginMiddleware(socketio.ASGIApp(app.state.sio, other_asgi_app=app))
    async with serve(asgi) as url, httpx.AsyncClient(base_url=url) as client:
        for path in ("/api/settings", "/api/conversations", "/api/secrets"):
            assert (await client.get(path)).status_code == 401, path
        allowed = await client.get("/api/conversations", headers={"X-Session-API-Key": "k3y"})
        assert allowed.status_code == 200
