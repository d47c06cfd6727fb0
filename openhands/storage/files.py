"""The FileStore seam: a tiny key/value store whose keys look like ``/``-separated paths.

Every backend (local disk, memory, S3, GCS, web-hook wrappers) implements these four
operations. Paths are relative to the store root; the contracts below are what the event
store and the conversation/settings stores rely on.
"""

from __future__ import annotations

from abc import ABC, abstractmethod


class FileStore(ABC):
    """Abstract file store. All paths are ``/``-separated and relative to the store root."""

    @abstractmethod
    def write(self, path: str, contents: str | bytes) -> None:
        """Create or overwrite ``path``; missing parent "directories" are created implicitly."""

    def write_private(self, path: str, contents: str | bytes) -> None:
        """Like ``write``, for files holding secrets (API keys, tokens).

        Backends that have POSIX permissions create such files readable by the owner only
        (mode 0600). Object stores have no such notion, so the default is a plain write.
        """
        self.write(path, contents)

    @abstractmethod
    def read(self, path: str) -> str:
        """Return the file's text. Raises ``FileNotFoundError`` when ``path`` is missing."""

    def read_bytes(self, path: str) -> bytes:
        """The file's contents as bytes (UTF-8 for text); ``FileNotFoundError`` when missing.

        Backends that hold bytes override it to skip decoding and re-encoding.
        """
        return self.read(path).encode("utf-8")

    @abstractmethod
    def list(self, path: str) -> list[str]:
        """Return the immediate children of ``path`` as full paths.

        Directory entries end with ``/``, files don't. The order is unspecified.
        """

    @abstractmethod
    def delete(self, path: str) -> None:
        """Delete a file, or a directory recursively. A missing path is not an error."""
