"""Undo history of the editor: up to N earlier texts per file, kept on disk (one JSON per file)."""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

MAX_HISTORY_PER_FILE = 10


class FileHistory:
    def __init__(self, directory: Path | None = None, max_entries: int = MAX_HISTORY_PER_FILE):
        # Without a directory of the caller's, a temporary one of our own: removed by
        # close(), or at the latest when this object is collected or the process exits.
        self._owned: tempfile.TemporaryDirectory[str] | None = None
        if directory is None:
            self._owned = tempfile.TemporaryDirectory(prefix="oh-editor-history-")
            directory = Path(self._owned.name)
        self._dir = directory
        self._dir.mkdir(parents=True, exist_ok=True)
        self.max_entries = max_entries

    def close(self) -> None:
        """Remove the history when it lives in a temporary directory of our own."""
        if self._owned is not None:
            self._owned.cleanup()
            self._owned = None

    def _entry_file(self, path: Path) -> Path:
        return self._dir / (hashlib.sha256(str(path).encode()).hexdigest() + ".json")

    def _load(self, path: Path) -> list[str]:
        entry = self._entry_file(path)
        if not entry.is_file():
            return []
        return list(json.loads(entry.read_text(encoding="utf-8"))["versions"])

    def _store(self, path: Path, versions: list[str]) -> None:
        entry = self._entry_file(path)
        if not versions:
            entry.unlink(missing_ok=True)
            return
        payload = {"path": str(path), "versions": versions}
        entry.write_text(json.dumps(payload), encoding="utf-8")

    def push(self, path: Path, content: str) -> None:
        versions = [*self._load(path), content][-self.max_entries :]
        self._store(path, versions)

    def pop(self, path: Path) -> str | None:
        versions = self._load(path)
        if not versions:
            return None
        content = versions.pop()
        self._store(path, versions)
        return content

    def entries(self, path: Path) -> list[str]:
        return self._load(path)
