"""Persistence: the FileStore seam and its backends, plus the conversation, settings and
secrets stores built on it. See README.md for the module map."""

from openhands.storage.factory import FileStoreConfig, get_file_store, get_file_store_from_config
from openhands.storage.files import FileStore
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore

__all__ = [
    "FileStore",
    "FileStoreConfig",
    "InMemoryFileStore",
    "LocalFileStore",
    "get_file_store",
    "get_file_store_from_config",
]
