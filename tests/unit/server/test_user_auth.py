"""Multi-user mode: a JWT names the user; data and conversations are kept apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.server.server_config import ServerConfig
from openhands.server.user_auth import create_user_token
from tests.unit.server.conftest import build_app, running
from tests.unit.server.socket_client import Recorder
from tests.unit.server.test_conversation_routes import wait_running
from tests.unit.server.test_socket import live


@pytest.fixture
def jwt_server() -> ServerConfig:
    return ServerConfig(rate_limit_enabled=False, serve_frontend=False, user_auth="jwt")


def bearer(config: OpenHandsConfig, user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {create_user_token(config, user)}"}


async def test_requests_need_a_valid_token(app_config, jwt_server, workspace: Path) -> None:
    async with running(build_app(app_config, jwt_server, workspace), workspace) as h:
        assert (await h.client.get("/api/settings")).status_code == 401
        forged = {"Authorization": "Bearer not-a-token"}
        assert (await h.client.get("/api/conversations", headers=forged)).status_code == 401
        ok = await h.client.get("/api/conversations", headers=bearer(app_config, "alice"))
        assert ok.status_code == 200
        h.client.cookies.set("openhands_auth", create_user_token(app_config, "alice"))
        assert (await h.client.get("/api/conversations")).status_code == 200
        assert (await h.client.get("/alive")).status_code == 200


async def test_users_are_kept_apart(app_config, jwt_server, workspace: Path) -> None:
    alice, bob = bearer(app_config, "alice"), bearer(app_config, "bob")
    async with running(build_app(app_config, jwt_server, workspace), workspace) as h:
        client = h.client
        await client.post(
            "/api/settings", json={"llm_api_key": "alice-key", "llm_model": "m"}, headers=alice
        )
        assert (await client.get("/api/settings", headers=bob)).status_code == 404
        root = Path(app_config.file_store_path)
        assert (root / "users" / "alice" / "settings.json").exists()
        await client.post("/api/secrets", json={"name": "S", "value": "v"}, headers=alice)
        assert (await client.get("/api/secrets", headers=bob)).json() == {"custom_secrets": []}

        created = await client.post("/api/conversations", json={}, headers=alice)
        conversation_id = created.json()["conversation_id"]
        assert (root / "sessions" / conversation_id / "metadata.json").exists()
        mine = (await client.get("/api/conversations", headers=alice)).json()["results"]
        assert [c["conversation_id"] for c in mine] == [conversation_id]
        assert (await client.get("/api/conversations", headers=bob)).json()["results"] == []

        h.client.headers.update(alice)
        await wait_running(h, conversation_id)
        h.client.headers.pop("Authorization")
        assert (root / "users" / "alice" / "conversations" / conversation_id / "events").exists()

        base = f"/api/conversations/{conversation_id}"
        for method, path in (
            ("GET", base),
            ("GET", f"{base}/events"),
            ("GET", f"{base}/list-files"),
            ("POST", f"{base}/stop"),
            ("DELETE", base),
        ):
            response = await client.request(method, path, headers=bob)
            assert response.status_code == 403, (method, path)
        rename = await client.patch(base, json={"title": "x"}, headers=bob)
        assert rename.status_code == 403
        assert rename.json()["msg_id"] == "AUTHORIZATION$PERMISSION_DENIED"
        assert (await client.get(f"{base}/list-files", headers=alice)).status_code == 200


async def test_socket_refuses_other_users(app_config, jwt_server, workspace: Path) -> None:
    async with live(app_config, jwt_server, workspace) as (h, url):
        alice = bearer(app_config, "alice")
        await h.client.post("/api/settings", json={"llm_api_key": "k"}, headers=alice)
        await h.client.post(
            "/api/settings", json={"llm_api_key": "k"}, headers=bearer(app_config, "bob")
        )
        created = await h.client.post("/api/conversations", json={}, headers=alice)
        conversation_id = created.json()["conversation_id"]
        intruder = Recorder()
        try:
            await intruder.client.connect(
                f"{url}?conversation_id={conversation_id}",
                transports=["websocket"],
                headers=bearer(app_config, "bob"),
            )
        except Exception:
            pass
        assert intruder.connect_errors
        assert intruder.connect_errors[0]["message"].startswith("Permission denied")
        owner = Recorder()
        try:
            await owner.client.connect(
                f"{url}?conversation_id={conversation_id}",
                transports=["websocket"],
                headers=alice,
            )
            assert owner.client.connected
        finally:
            await owner.close()
            await intruder.close()
