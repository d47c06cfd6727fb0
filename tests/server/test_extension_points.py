"""The server's extension points (python-api §6.2) on a real process: a ServerConfig
subclass named by `OPENHANDS_CONFIG_CLS` swaps in the stores, the conversation manager,
the monitoring listener and the user auth of `extensions.py`, which record their use."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.server.server_process import ServerProcess

CONFIG_CLS = "tests.server.extensions.RecordingServerConfig"


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_a_config_subclass_swaps_every_extension_point(tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    env = {"OPENHANDS_CONFIG_CLS": CONFIG_CLS, "EXTENSION_RECORD": str(record)}
    with (
        ServerProcess(tmp_path / "server", env=env) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        # Built by the lifespan, before the first request is answered.
        started = _lines(record)
        assert "monitoring_listener" in started
        assert "conversation_manager RecordingMonitoringListener" in started
        assert "conversation_store" in started

        config = client.get("/api/options/config").json()
        assert config["POSTHOG_CLIENT_KEY"] == "from-subclass"

        assert client.get("/api/settings", headers={"X-Test-User": "ann"}).status_code == 404
        stored = client.post(
            "/api/settings",
            json={"llm_model": "openai/x", "llm_api_key": "k"},
            headers={"X-Test-User": "ann"},
        )
        assert stored.status_code == 200
        assert client.get("/api/secrets", headers={"X-Test-User": "ann"}).status_code == 200
        assert client.get("/api/conversations").status_code == 200
        lines = _lines(record)

    assert "user_auth ann" in lines and "user_auth None" in lines
    assert "settings_store ann" in lines
    assert "secrets_store ann" in lines
    assert "conversation_store.search" in lines
    # The user auth's user id really decides where settings live.
    assert (tmp_path / "server" / "store" / "users" / "ann" / "settings.json").exists()
    assert not (tmp_path / "server" / "store" / "settings.json").exists()
