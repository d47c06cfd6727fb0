"""Build the FileStore that the configuration asks for."""

from __future__ import annotations

import os
from typing import Protocol, TypedDict

from openhands.storage.files import FileStore
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore


class FileStoreConfig(Protocol):
    """The configuration attributes a file store is built from (``OpenHandsConfig`` has them)."""

    @property
    def file_store(self) -> str: ...
    @property
    def file_store_path(self) -> str | None: ...
    @property
    def file_store_web_hook_url(self) -> str | None: ...
    @property
    def file_store_web_hook_headers(self) -> dict[str, str] | None: ...
    @property
    def file_store_web_hook_batch(self) -> bool: ...


def get_file_store(
    file_store_type: str,
    file_store_path: str | None = None,
    file_store_web_hook_url: str | None = None,
    file_store_web_hook_headers: dict[str, str] | None = None,
    file_store_web_hook_batch: bool = False,
) -> FileStore:
    """``local`` (needs a path), ``s3``/``google_cloud`` (the path is the bucket), else memory.

    With a web-hook URL the store is wrapped so every change is mirrored to it (batched on
    request). Without explicit headers the hook requests carry ``X-Session-API-Key`` from
    env ``SESSION_API_KEY`` when that is set. Each call builds a new store: a ``memory``
    store is not shared between calls.
    """
    store: FileStore
    if file_store_type == "local":
        if file_store_path is None:
            raise ValueError("file_store_path is required for the local file store")
        store = LocalFileStore(file_store_path)
    elif file_store_type == "s3":
        from openhands.storage.s3 import S3FileStore

        store = S3FileStore(file_store_path)
    elif file_store_type == "google_cloud":
        from openhands.storage.google_cloud import GoogleCloudFileStore

        store = GoogleCloudFileStore(file_store_path)
    else:
        store = InMemoryFileStore()

    if not file_store_web_hook_url:
        return store

    import httpx

    if file_store_web_hook_headers is None:
        file_store_web_hook_headers = {}
        session_api_key = os.getenv("SESSION_API_KEY")
        if session_api_key:
            file_store_web_hook_headers["X-Session-API-Key"] = session_api_key
    client = httpx.Client(headers=file_store_web_hook_headers)
    if file_store_web_hook_batch:
        from openhands.storage.batched_web_hook import BatchedWebHookFileStore

        return BatchedWebHookFileStore(store, file_store_web_hook_url, client)
    from openhands.storage.web_hook import WebHookFileStore

    return WebHookFileStore(store, file_store_web_hook_url, client)


class FileStoreArgs(TypedDict):
    """The keyword arguments of ``get_file_store`` taken from a config."""

    file_store_type: str
    file_store_path: str | None
    file_store_web_hook_url: str | None
    file_store_web_hook_headers: dict[str, str] | None
    file_store_web_hook_batch: bool


def file_store_args(config: FileStoreConfig) -> FileStoreArgs:
    """``get_file_store``'s keyword arguments from the ``file_store*`` attributes of ``config``
    (the stores call their own module's ``get_file_store`` with them: a patch point)."""
    return FileStoreArgs(
        file_store_type=config.file_store,
        file_store_path=config.file_store_path,
        file_store_web_hook_url=config.file_store_web_hook_url,
        file_store_web_hook_headers=config.file_store_web_hook_headers,
        file_store_web_hook_batch=config.file_store_web_hook_batch,
    )


def get_file_store_from_config(config: FileStoreConfig) -> FileStore:
    """``get_file_store`` with the ``file_store*`` attributes of ``config``."""
    return get_file_store(**file_store_args(config))
