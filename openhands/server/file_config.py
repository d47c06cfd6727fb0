"""Upload and listing rules of the reference's ``openhands.server.file_config``.

``FILES_TO_IGNORE`` is the workspace listing's ignore list (``services/workspace.py`` holds
it) and ``is_extension_allowed`` applies ``services.workspace.extension_allowed``, the rule
the upload route uses. ``MAX_FILE_SIZE_MB``, ``RESTRICT_FILE_TYPES`` and
``ALLOWED_EXTENSIONS`` come from ``load_file_upload_config()`` of this process's config
(``openhands.server.shared.config``), read on first access, not at import.
"""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING, Any

from openhands.server.services.workspace import FILES_TO_IGNORE, extension_allowed

if TYPE_CHECKING:
    from openhands.core.config import OpenHandsConfig

    # Served by __getattr__ from load_file_upload_config().
    MAX_FILE_SIZE_MB: int
    RESTRICT_FILE_TYPES: bool
    ALLOWED_EXTENSIONS: list[str]

__all__ = [
    "ALLOWED_EXTENSIONS",
    "FILES_TO_IGNORE",
    "MAX_FILE_SIZE_MB",
    "RESTRICT_FILE_TYPES",
    "get_unique_filename",
    "is_extension_allowed",
    "load_file_upload_config",
    "sanitize_filename",
]

MAX_FILENAME_LENGTH = 255
_UNSAFE = re.compile(r"[^\w\-. ]")


def sanitize_filename(filename: str) -> str:
    """The base name with every character other than letters, digits, ``_-. `` replaced
    by ``_``, cut to 255 characters with the extension kept."""
    name = _UNSAFE.sub("_", os.path.basename(filename))
    if len(name) > MAX_FILENAME_LENGTH:
        stem, extension = os.path.splitext(name)
        name = stem[: MAX_FILENAME_LENGTH - len(extension)] + extension
    return name


def load_file_upload_config(
    config: OpenHandsConfig | None = None,
) -> tuple[int, bool, list[str]]:
    """``(max_file_size_mb, restrict_file_types, allowed_extensions)`` of ``config``
    (default: this process's): a negative size is 0 (no limit); extensions are lower-case
    with a leading dot, and an empty list allows everything (``['.*']``)."""
    if config is None:
        from openhands.server import shared

        config = shared.config
    max_mb = max(0, int(config.file_uploads_max_file_size_mb))
    extensions = [
        ext.lower() if ext.startswith(".") else f".{ext.lower()}"
        for ext in config.file_uploads_allowed_extensions
        if ext
    ]
    return max_mb, bool(config.file_uploads_restrict_file_types), extensions or [".*"]


_LOADED = {"MAX_FILE_SIZE_MB": 0, "RESTRICT_FILE_TYPES": 1, "ALLOWED_EXTENSIONS": 2}


def __getattr__(name: str) -> Any:
    index = _LOADED.get(name)
    if index is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return load_file_upload_config()[index]


def is_extension_allowed(filename: str) -> bool:
    """Whether uploads may have ``filename``'s extension under this module's
    ``RESTRICT_FILE_TYPES`` and ``ALLOWED_EXTENSIONS`` (looked up in the module at call
    time, so a value set on the module wins over the process config)."""
    module = sys.modules[__name__]
    restrict = bool(module.RESTRICT_FILE_TYPES)
    allowed: list[str] = list(module.ALLOWED_EXTENSIONS)
    return extension_allowed(filename, allowed, restrict)


def get_unique_filename(filename: str, folder_path: str) -> str:
    """``filename``, or ``name(1).ext``, ``name(2).ext``, … — the first not in the folder."""
    stem, extension = os.path.splitext(filename)
    candidate, counter = filename, 1
    while os.path.exists(os.path.join(folder_path, candidate)):
        candidate = f"{stem}({counter}){extension}"
        counter += 1
    return candidate
