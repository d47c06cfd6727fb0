"""How the file-backed stores build their FileStore, and the GCS store's blob calls."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from openhands.core.config.openhands_config import OpenHandsConfig
from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.memory import InMemoryFileStore
from openhands.storage.secrets.file_secrets_store import FileSecretsStore
from openhands.storage.settings.file_settings_store import FileSettingsStore


@pytest.mark.parametrize("store_cls", [FileSettingsStore, FileSecretsStore, FileConversationStore])
async def test_get_instance_calls_get_file_store_by_keyword(
    monkeypatch: pytest.MonkeyPatch, store_cls: Any
) -> None:
    calls: list[dict[str, Any]] = []
    backing = InMemoryFileStore()

    def fake_get_file_store(**kwargs: Any) -> InMemoryFileStore:
        calls.append(kwargs)
        return backing

    monkeypatch.setattr(f"{store_cls.__module__}.get_file_store", fake_get_file_store)
    config = OpenHandsConfig(file_store="local", file_store_path="/data/oh")
    store = await store_cls.get_instance(config, None)
    assert store.file_store is backing
    assert calls == [
        {
            "file_store_type": "local",
            "file_store_path": "/data/oh",
            "file_store_web_hook_url": None,
            "file_store_web_hook_headers": None,
            "file_store_web_hook_batch": False,
        }
    ]


class _Handle:
    def __init__(self, blob: _Blob, mode: str) -> None:
        self.blob, self.mode = blob, mode

    def __enter__(self) -> _Handle:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def read(self) -> str:
        return str(self.blob.data)

    def write(self, data: str | bytes) -> None:
        self.blob.data = data
        self.blob.bucket.blobs[self.blob.name] = self.blob


class _Blob:
    def __init__(self, bucket: _Bucket, name: str) -> None:
        self.bucket, self.name = bucket, name
        self.data: str | bytes | None = None
        self.modes: list[str] = []

    def open(self, mode: str) -> _Handle:
        self.bucket.modes.append(mode)
        if mode == "r" and self.name not in self.bucket.blobs:
            raise self.bucket.not_found(self.name)
        return _Handle(self, mode)

    def delete(self) -> None:
        if self.bucket.blobs.pop(self.name, None) is None:
            raise self.bucket.not_found(self.name)


class _Bucket:
    def __init__(self, not_found: type[Exception]) -> None:
        self.not_found = not_found
        self.blobs: dict[str, _Blob] = {}
        self.modes: list[str] = []

    def blob(self, name: str) -> _Blob:
        return self.blobs.get(name) or _Blob(self, name)

    def list_blobs(self, prefix: str | None = None) -> list[_Blob]:
        return [b for n, b in self.blobs.items() if not prefix or n.startswith(prefix)]


def test_gcs_store_reads_and_writes_through_blob_open(monkeypatch: pytest.MonkeyPatch) -> None:
    class NotFound(Exception):
        pass

    bucket = _Bucket(NotFound)

    class Client:
        def bucket(self, name: str) -> _Bucket:
            assert name == "my-bucket"
            return bucket

    google = types.ModuleType("google")
    cloud = types.ModuleType("google.cloud")
    storage = types.ModuleType("google.cloud.storage")
    api_core = types.ModuleType("google.api_core")
    exceptions = types.ModuleType("google.api_core.exceptions")
    storage.Client = Client  # type: ignore[attr-defined]
    exceptions.NotFound = NotFound  # type: ignore[attr-defined]
    cloud.storage = storage  # type: ignore[attr-defined]
    for name, module in (
        ("google", google),
        ("google.cloud", cloud),
        ("google.cloud.storage", storage),
        ("google.api_core", api_core),
        ("google.api_core.exceptions", exceptions),
    ):
        monkeypatch.setitem(sys.modules, name, module)
    from openhands.storage.google_cloud import GoogleCloudFileStore

    store = GoogleCloudFileStore("my-bucket")
    store.write("a/b.txt", "hello")
    store.write("a/c.bin", b"\x00\x01")
    assert store.read("a/b.txt") == "hello"
    assert bucket.modes[:2] == ["w", "wb"]
    assert sorted(store.list("a")) == ["a/b.txt", "a/c.bin"]
    with pytest.raises(FileNotFoundError):
        store.read("missing.txt")
    store.delete("a")
    assert store.list("") == []
