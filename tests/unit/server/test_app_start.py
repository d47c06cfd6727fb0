"""What a server does to the config it loads for itself at start."""

from __future__ import annotations

from pathlib import Path

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.core.logger import unregister_secret
from openhands.server.app_services import load_app_config


def test_a_server_loaded_config_has_the_stores_jwt_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    loaded = OpenHandsConfig(file_store="local", file_store_path=str(store))
    monkeypatch.setattr("openhands.core.config.load_openhands_config", lambda: loaded)
    config = load_app_config()
    assert config is loaded
    assert config.jwt_secret is not None
    secret = config.jwt_secret.get_secret_value()
    unregister_secret(secret)
    assert (store / ".jwt_secret").read_text() == secret
