"""BodySizeLimitMiddleware: request bodies over the limit are a 413, read or not."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

from openhands.core.config import OpenHandsConfig
from openhands.server.server_config import ServerConfig
from tests.unit.server.conftest import build_app, running

LIMIT = 1000
UPLOAD_LIMIT = 5000


def _server() -> ServerConfig:
    return ServerConfig(
        rate_limit_enabled=False,
        serve_frontend=False,
        max_request_body_bytes=LIMIT,
        max_upload_body_bytes=UPLOAD_LIMIT,
    )


async def _chunks(total: int, size: int = 300) -> AsyncIterator[bytes]:
    for start in range(0, total, size):
        yield b"x" * min(size, total - start)


async def test_bodies_over_the_limit_are_refused(
    app_config: OpenHandsConfig, workspace: Path
) -> None:
    async with running(build_app(app_config, _server(), workspace), workspace) as h:
        too_large = {"detail": f"Request body too large (limit {LIMIT} bytes)"}
        declared = await h.client.post("/api/settings", content=b"{" + b" " * LIMIT + b"}")
        assert (declared.status_code, declared.json()) == (413, too_large)
        chunked = await h.client.post("/api/settings", content=_chunks(3 * LIMIT))
        assert (chunked.status_code, chunked.json()) == (413, too_large)
        fits = await h.client.post("/api/settings", json={"language": "x" * (LIMIT // 2)})
        assert fits.status_code == 200
        # Nothing was stored by the refused requests.
        assert (await h.client.get("/api/settings")).json()["language"] == "x" * (LIMIT // 2)


async def test_uploads_have_their_own_limit(app_config: OpenHandsConfig, workspace: Path) -> None:
    async with running(build_app(app_config, _server(), workspace), workspace) as h:
        url = "/api/conversations/abc/upload-files"
        small = await h.client.post(url, files=[("files", ("a.bin", b"x" * (2 * LIMIT)))])
        assert small.status_code == 404  # past the body limit: the conversation is unknown
        big = await h.client.post(url, files=[("files", ("a.bin", b"x" * UPLOAD_LIMIT))])
        assert big.status_code == 413
        assert big.json() == {"detail": f"Request body too large (limit {UPLOAD_LIMIT} bytes)"}
