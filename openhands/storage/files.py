"""The FileStore seam: a tiny key/value store whose keys look like ``/``-separated paths.

Every backend (local disk, memory, S3, GCS, web-hook wrappers) implements the four abstract
operations. Paths are relative to the store root; the contracts below are what the event
store and the conversation/settings stores rely on. The other methods have portable
defaults built on those four; a backend overrides one when it can do the same job cheaper.
"""

from __future__ import annotations

import builtins  # in the class bodies below, ``list`` is the method, not the type
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

    def list_names(self, path: str) -> builtins.list[str]:
        """The last path segment of each of ``list(path)``'s entries (directories without
        their trailing ``/``), in no particular order; a missing ``path`` is treated as
        ``list`` treats it. For callers that match names, not paths: the local store
        skips building a path and checking the type of each entry."""
        return [entry.rstrip("/").rsplit("/", 1)[-1] for entry in self.list(path)]

    @abstractmethod
    def delete(self, path: str) -> None:
        """Delete a file, or a directory recursively. A missing path is not an error."""

    def write_atomic(self, path: str, contents: bytes, scratch: str) -> None:
        """Write ``path`` so that it exists complete or not at all, for a concurrent reader
        and after a crash at any instant, whatever the store's own write mode.

        ``scratch`` is a store path the caller reserves for this write (no other write
        running at the same time uses it). A backend that writes through a temporary file
        writes it there and moves it into place; it may be left behind by a crash and is
        overwritten by the next write using it. By default this is ``write``: putting an
        object, or setting a dict entry, is already all or nothing.
        """
        self.write(path, contents)

    def write_new(self, path: str, contents: bytes) -> None:
        """Create ``path``, complete or not at all (as ``write_atomic`` does), and never replace
        a file that is already there: the local store then raises ``FileExistsError`` and
        leaves that file as it was.

        By default this is ``write``: an object store would need a conditional put or an
        extra request per file to refuse, and on such a store the event stream finds its
        next id by listing (the default ``sequence_end``), which sees every file, so it never
        picks an id that is taken.
        """
        self.write(path, contents)

    def sequence_end(self, directory: str, suffix: str, start: int, max_gap: int) -> int:
        """One past the highest ``n >= start`` for which ``{directory}{n}{suffix}`` exists,
        or ``start`` when there is none. ``directory`` ends with ``/``.

        For files numbered 0, 1, 2, ... with ``start`` known to be in use or next: a backend
        may look at the numbers from ``start`` on one by one and stop after ``max_gap``
        missing ones in a row. The default lists the directory, which is one request on an
        object store, where checking numbers one by one would cost one request each.
        """
        try:
            names = self.list(directory)
        except FileNotFoundError:
            return start
        end = start
        for name in names:
            stem = name.rsplit("/", 1)[-1]
            if not stem.endswith(suffix):
                continue
            number = stem[: len(stem) - len(suffix)]
            if number.isdigit() and int(number) >= end:
                end = int(number) + 1
        return end
