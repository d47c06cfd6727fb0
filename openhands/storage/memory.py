"""FileStore kept in a dict: for tests and for the ``memory`` store type."""

from __future__ import annotations

from openhands.storage.files import FileStore


class InMemoryFileStore(FileStore):
    """Keys are full paths, values are text (bytes are decoded as UTF-8).

    Listing and deleting work by plain string prefix, not by path segment: ``list("a/b")``
    also reports children of ``a/bc/``. A missing path lists as ``[]``. The optional
    initial dict is used as-is (not copied), so a caller may share or inspect it.
    """

    def __init__(self, files: dict[str, str] | None = None) -> None:
        self.files: dict[str, str] = {} if files is None else files

    def write(self, path: str, contents: str | bytes) -> None:
        self.files[path] = contents.decode("utf-8") if isinstance(contents, bytes) else contents

    def read(self, path: str) -> str:
        try:
            return self.files[path]
        except KeyError:
            raise FileNotFoundError(path) from None

    def list(self, path: str) -> list[str]:
        entries: list[str] = []
        seen_dirs: set[str] = set()
        # Iterate over a snapshot: other threads may write while we list.
        for key in list(self.files):
            if not key.startswith(path):
                continue
            parts = key[len(path) :].split("/")
            if parts[0] == "":
                parts.pop(0)
            if not parts:
                continue  # the key is ``path`` itself: a file is not its own child
            if len(parts) == 1:
                entries.append(key)
                continue
            directory = _join(path, parts[0])
            if directory not in seen_dirs:
                seen_dirs.add(directory)
                entries.append(directory)
        return entries

    def delete(self, path: str) -> None:
        for key in [key for key in list(self.files) if key.startswith(path)]:
            self.files.pop(key, None)


def _join(path: str, child: str) -> str:
    """``path`` + ``/`` (if missing) + ``child`` + ``/``."""
    if path and not path.endswith("/"):
        return f"{path}/{child}/"
    return f"{path}{child}/"
