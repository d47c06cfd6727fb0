"""The JWT secret the entry points give their config at start (openhands.storage.jwt_secret)."""

from __future__ import annotations

import stat
from pathlib import Path

from openhands.core.config import OpenHandsConfig
from openhands.core.logger import current_secrets, unregister_secret
from openhands.storage.jwt_secret import (
    JWT_SECRET_FILE,
    ensure_jwt_secret,
    read_or_create_jwt_secret,
)
from openhands.storage.memory import InMemoryFileStore


def test_a_local_store_keeps_one_owner_only_secret(tmp_path: Path) -> None:
    store = tmp_path / "store"
    config = OpenHandsConfig(file_store="local", file_store_path=str(store))
    secret = ensure_jwt_secret(config).get_secret_value()
    try:
        assert len(secret) >= 32
        assert config.jwt_secret is not None
        assert config.jwt_secret.get_secret_value() == secret
        assert (store / JWT_SECRET_FILE).read_text() == secret
        assert stat.S_IMODE((store / JWT_SECRET_FILE).stat().st_mode) == 0o600
        assert secret in current_secrets()  # masked in the logs like the config's others
        again = OpenHandsConfig(file_store="local", file_store_path=str(store))
        assert ensure_jwt_secret(again).get_secret_value() == secret
    finally:
        unregister_secret(secret)


def test_a_configured_secret_is_kept_and_nothing_is_written(tmp_path: Path) -> None:
    config = OpenHandsConfig(file_store_path=str(tmp_path / "store"), jwt_secret="given")
    assert ensure_jwt_secret(config).get_secret_value() == "given"
    assert not (tmp_path / "store" / JWT_SECRET_FILE).exists()


def test_a_memory_store_gets_a_fresh_secret_each_time() -> None:
    first = ensure_jwt_secret(OpenHandsConfig(file_store="memory")).get_secret_value()
    second = ensure_jwt_secret(OpenHandsConfig(file_store="memory")).get_secret_value()
    try:
        assert first != second
    finally:
        unregister_secret(first)
        unregister_secret(second)


def test_any_file_store_holds_the_secret() -> None:
    store = InMemoryFileStore()
    secret = read_or_create_jwt_secret(store)
    assert store.read(JWT_SECRET_FILE) == secret
    assert read_or_create_jwt_secret(store) == secret
