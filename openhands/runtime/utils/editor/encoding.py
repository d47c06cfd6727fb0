"""Reading and writing files in the encoding they already use.

Detection: a charset detector's guess when it is more than 90 % confident ("ascii" counts as
UTF-8), else UTF-8 (unless the bytes are not UTF-8 at all: then the detector's best guess). Guesses are cached per path and modification time.
"""

from __future__ import annotations

import os
from pathlib import Path

import chardet

DEFAULT_ENCODING = "utf-8"
_SAMPLE_BYTES = 64 * 1024
_MIN_CONFIDENCE = 0.9


class EncodingManager:
    def __init__(self) -> None:
        self._cache: dict[str, tuple[float, str]] = {}

    def detect(self, path: Path) -> str:
        if not path.is_file():
            return DEFAULT_ENCODING
        key = str(path)
        mtime = os.path.getmtime(path)
        cached = self._cache.get(key)
        if cached and cached[0] == mtime:
            return cached[1]
        with path.open("rb") as handle:
            sample = handle.read(_SAMPLE_BYTES)
        encoding = _guess(sample) if sample else DEFAULT_ENCODING
        self._cache[key] = (mtime, encoding)
        return encoding

    def read_text(self, path: Path) -> str:
        # newline="" keeps \r\n and lone \r as they are in the file.
        with path.open(encoding=self.detect(path), errors="replace", newline="") as handle:
            return handle.read()

    def write_text(self, path: Path, content: str) -> None:
        encoding = self.detect(path) if path.exists() else DEFAULT_ENCODING
        with path.open("w", encoding=encoding, newline="") as handle:
            handle.write(content)
        self._cache.pop(str(path), None)


def _guess(sample: bytes) -> str:
    """A confident guess wins; else UTF-8 when the bytes decode as UTF-8; else the detector's
    best guess (so a legacy-encoded file is not rewritten as mangled UTF-8)."""
    guess = chardet.detect(sample)
    name = (guess.get("encoding") or "").lower()
    if name == "ascii":
        return DEFAULT_ENCODING
    if name and (guess.get("confidence") or 0) > _MIN_CONFIDENCE:
        return name
    try:
        sample.decode(DEFAULT_ENCODING)
    except UnicodeDecodeError as exc:
        # A multi-byte character cut at the end of the sample is still UTF-8.
        if exc.start < len(sample) - 3 and name:
            return name
    return DEFAULT_ENCODING
