"""get_file_store: choosing and wrapping the store from configuration."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from openhands.storage import (
    InMemoryFileStore,
    LocalFileStore,
    get_file_store,
    get_file_store_from_config,
)
from openhands.storage.batched_web_hook import BatchedWebHookFileStore
from openhands.storage.web_hook import WebHookFileStore

from .conftest import RecordingServer


def test_local_store(tmp_path: Path) -> None:
    store = get_file_store("local", str(tmp_path / "fs"))
    assert isinstance(store, LocalFileStore)
    assert store.root == str(tmp_path / "fs")


def test_local_store_needs_a_path() -> None:
    with pytest.raises(ValueError):
        get_file_store("local")


@pytest.mark.parametrize("kind", ["memory", "anything-else"])
def test_other_types_give_a_fresh_memory_store(kind: str) -> None:
    first, second = get_file_store(kind), get_file_store(kind)
    assert isinstance(first, InMemoryFileStore)
    first.write("a", "1")
    assert second.list("") == []


def test_web_hook_wrapping(tmp_path: Path) -> None:
    plain = get_file_store("local", str(tmp_path), "http://127.0.0.1:9/hook")
    assert isinstance(plain, WebHookFileStore)
    assert isinstance(plain.file_store, LocalFileStore)
    assert plain.base_url == "http://127.0.0.1:9/hook"
    batched = get_file_store("memory", None, "http://127.0.0.1:9/hook", None, True)
    assert isinstance(batched, BatchedWebHookFileStore)


def test_hook_requests_carry_the_session_api_key_by_default(
    http_server: RecordingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSION_API_KEY", "sess-123")
    store = get_file_store("memory", None, http_server.base_url + "/")
    assert isinstance(store, WebHookFileStore)
    store.write("a.txt", "1")
    store.flush(timeout=5)
    assert http_server.wait_for(1)[0].headers["X-Session-API-Key"] == "sess-123"


def test_explicit_hook_headers_replace_the_default(
    http_server: RecordingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSION_API_KEY", "sess-123")
    store = get_file_store("memory", None, http_server.base_url + "/", {"X-Custom": "yes"})
    assert isinstance(store, WebHookFileStore)
    store.write("a.txt", "1")
    store.flush(timeout=5)
    headers = http_server.wait_for(1)[0].headers
    assert headers["X-Custom"] == "yes"
    assert "X-Session-API-Key" not in headers


def test_no_session_key_header_without_the_env(
    http_server: RecordingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SESSION_API_KEY", raising=False)
    store = get_file_store("memory", None, http_server.base_url + "/", None, True)
    assert isinstance(store, BatchedWebHookFileStore)
    store.write("a.txt", "1")
    assert store.flush(timeout=5)
    assert "X-Session-API-Key" not in http_server.wait_for(1)[0].headers


def test_from_config_object(tmp_path: Path) -> None:
    config = SimpleNamespace(
        file_store="local",
        file_store_path=str(tmp_path),
        file_store_web_hook_url=None,
        file_store_web_hook_headers=None,
        file_store_web_hook_batch=False,
    )
    store = get_file_store_from_config(config)
    assert isinstance(store, LocalFileStore)
    assert store.root == str(tmp_path)


def test_from_the_app_config(tmp_path: Path) -> None:
    from openhands.core.config.openhands_config import OpenHandsConfig

    config = OpenHandsConfig(file_store="local", file_store_path=str(tmp_path / "oh"))
    store = get_file_store_from_config(config)
    assert isinstance(store, LocalFileStore)
    assert store.root == str(tmp_path / "oh")
