"""Where per-user files (settings, secrets) live in a FileStore."""

from __future__ import annotations


def user_file_path(filename: str, user_id: str | None) -> str:
    """``filename`` at the store root in single-user mode, else ``users/<user_id>/filename``."""
    if user_id is None:
        return filename
    if not user_id or "/" in user_id or user_id in (".", ".."):
        raise ValueError(f"Invalid user id: {user_id!r}")
    return f"users/{user_id}/{filename}"
