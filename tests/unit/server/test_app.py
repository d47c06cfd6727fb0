"""App assembly: health routes, docs, the session key guard and the SPA mount."""

from __future__ import annotations

from pathlib import Path

import httpx

from openhands.core.config import OpenHandsConfig
from openhands.server.server_config import ServerConfig
from tests.unit.server.conftest import build_app, running


async def test_health_routes(harness) -> None:
    assert (await harness.client.get("/alive")).json() == {"status": "ok"}
    assert (await harness.client.get("/health")).json() == "OK"
    info = (await harness.client.get("/server_info")).json()
    assert info["uptime"] >= 0 and info["idle_time"] >= 0
    assert set(info["resources"]) == {"cpu_percent", "memory", "disk", "io"}
    assert set(info["resources"]["memory"]) == {"rss", "vms", "percent"}


async def test_docs_and_openapi(harness) -> None:
    assert (await harness.client.get("/docs")).status_code == 200
    schema = (await harness.client.get("/openapi.json")).json()
    assert "/api/conversations" in schema["paths"]
    assert "/api/conversations/{conversation_id}/list-files" in schema["paths"]
    # Wire models carry their field descriptions into the schema.
    info = schema["components"]["schemas"]["ConversationInfo"]["properties"]
    assert info["num_connections"]["description"] == "Sockets currently joined"


async def test_session_api_key_guards_api_but_not_health(
    app_config: OpenHandsConfig, workspace: Path
) -> None:
    server = ServerConfig(rate_limit_enabled=False, serve_frontend=False, session_api_key="k3y")
    async with running(build_app(app_config, server, workspace), workspace) as h:
        denied = await h.client.get("/api/conversations")
        assert denied.status_code == 401
        assert denied.json() == {"detail": "Unauthorized"}
        assert (await h.client.get("/api/options/config")).status_code == 401
        allowed = await h.client.get("/api/conversations", headers={"X-Session-API-Key": "k3y"})
        assert allowed.status_code == 200
        for path in ("/alive", "/health", "/server_info"):
            assert (await h.client.get(path)).status_code == 200


async def test_spa_fallback(app_config: OpenHandsConfig, workspace: Path, tmp_path: Path) -> None:
    build = tmp_path / "build"
    (build / "assets").mkdir(parents=True)
    (build / "index.html").write_text("<html>spa</html>")
    (build / "assets" / "app-1234.js").write_text("console.log(1)")
    server = ServerConfig(rate_limit_enabled=False, frontend_dir=str(build))
    async with running(build_app(app_config, server, workspace), workspace) as h:
        root = await h.client.get("/")
        assert root.status_code == 200 and "spa" in root.text
        for client_route in ("/conversations/abc", "/settings/git", "/accept-tos"):
            page = await h.client.get(client_route)
            assert page.status_code == 200 and "spa" in page.text
        asset = await h.client.get("/assets/app-1234.js")
        assert asset.text == "console.log(1)"
        assert "immutable" in asset.headers["cache-control"]
        unknown_api = await h.client.get("/api/nothing-here")
        assert unknown_api.status_code == 404
        assert unknown_api.json() == {"detail": "Not Found"}
        post = await h.client.post("/somewhere")
        assert post.status_code == 405
        assert post.json() == {"detail": "Method Not Allowed"}


async def test_missing_frontend_build_page(
    app_config: OpenHandsConfig, workspace: Path, tmp_path: Path
) -> None:
    server = ServerConfig(rate_limit_enabled=False, frontend_dir=str(tmp_path / "nope"))
    async with running(build_app(app_config, server, workspace), workspace) as h:
        page = await h.client.get("/")
        assert page.status_code == 200
        assert "isn't built" in page.text
        assert (await h.client.get("/api/unknown")).json() == {"detail": "Not Found"}


async def test_listen_module_wraps_fastapi_in_socketio() -> None:
    import socketio

    from openhands.server import listen
    from openhands.server.middleware import SandboxOriginMiddleware

    # The sandbox-origin filter sits outside Socket.IO, so sockets cannot bypass it.
    wrappers = [listen.app]
    while len(wrappers) < 5 and hasattr(wrappers[-1], "app"):
        wrappers.append(wrappers[-1].app)
    [origin_filter] = [w for w in wrappers if isinstance(w, SandboxOriginMiddleware)]
    assert isinstance(origin_filter.app, socketio.ASGIApp)
    assert listen.sio is listen.base_app.state.sio
    names = [m.cls.__name__ for m in listen.base_app.user_middleware]
    # Outermost first.
    assert names[:3] == ["RateLimitMiddleware", "ActivityMiddleware", "CacheControlMiddleware"]
    assert names[-5:] == [
        "LocalhostCORSMiddleware",
        "BodySizeLimitMiddleware",
        "ConversationForwardingMiddleware",
        "AttachConversationMiddleware",
        "GitHubTokenMiddleware",
    ]
    assert isinstance(httpx, object)
