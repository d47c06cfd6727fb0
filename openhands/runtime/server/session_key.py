"""The action server's session API key, and its one-time hand-over to a conversation.

A warm-pool sandbox starts with a key only its pool knows. When a conversation claims
it, the host calls ``POST /session_api_key`` with that pool key and sends the
conversation's own fresh key; from then on only the new key is accepted. The new key is
also written to ``SESSION_API_KEY_FILE`` (root-only, mode 0600), so a restart of the
container keeps it instead of falling back to the pool key in the container's create-time
environment (which ``docker inspect`` shows). Without ``SESSION_API_KEY_FILE`` the server
refuses to rotate: a key that a restart would silently undo is worse than none.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Mapping

KEY_FILE_ENV = "SESSION_API_KEY_FILE"
# A new key must be at least this long (secrets.token_urlsafe(32) gives 43 characters).
MIN_KEY_LENGTH = 32
MAX_KEY_LENGTH = 256


class KeyRotationError(ValueError):
    """The rotation request cannot be honoured (bad key, or no key file to keep it in)."""


def initial_session_key(environ: Mapping[str, str] = os.environ) -> str | None:
    """The key to require at start: the rotated one kept in the key file, if any, else
    ``SESSION_API_KEY``."""
    path = environ.get(KEY_FILE_ENV)
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                kept = f.read().strip()
        except FileNotFoundError:
            kept = ""
        if kept:
            return kept
    return environ.get("SESSION_API_KEY") or None


class SessionKey:
    """The key the server currently requires; replaced at most through ``rotate``."""

    def __init__(self, key: str | None, key_file: str | None = None) -> None:
        self._key = key.encode() if key else None
        self._key_file = key_file
        self._lock = threading.Lock()

    @property
    def required(self) -> bool:
        return self._key is not None

    def matches(self, presented: bytes | None) -> bool:
        key = self._key
        if key is None:
            return True
        return presented is not None and secrets.compare_digest(presented, key)

    def rotate(self, new_key: str) -> None:
        """Require ``new_key`` from now on (the caller already proved it knows the old one)."""
        if self._key is None:
            raise KeyRotationError("This server has no session API key to replace")
        if not self._key_file:
            raise KeyRotationError(f"Key rotation needs {KEY_FILE_ENV}")
        if not (MIN_KEY_LENGTH <= len(new_key) <= MAX_KEY_LENGTH) or not new_key.isprintable():
            raise KeyRotationError(
                f"The new key must be {MIN_KEY_LENGTH} to {MAX_KEY_LENGTH} printable characters"
            )
        encoded = new_key.encode()
        with self._lock:
            if secrets.compare_digest(encoded, self._key):
                raise KeyRotationError("The new key must differ from the current one")
            _write_private(self._key_file, new_key)
            self._key = encoded


def _write_private(path: str, text: str) -> None:
    """Replace ``path`` atomically with a 0600 file holding ``text``."""
    directory = os.path.dirname(path) or "."
    temp = os.path.join(directory, f".{os.path.basename(path)}.{secrets.token_hex(4)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
