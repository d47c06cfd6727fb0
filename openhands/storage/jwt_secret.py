"""The secret that signs the server's JWTs and salts conversation ids.

It is kept in the file store, so a restart keeps tokens valid and named conversations keep
their ids. The entry points give their config one at start (`ensure_jwt_secret`); config
loading itself stays free of storage.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from pydantic import SecretStr

from openhands.core.logger import register_secret
from openhands.storage.factory import get_file_store

if TYPE_CHECKING:
    from openhands.core.config import OpenHandsConfig
    from openhands.storage.files import FileStore

JWT_SECRET_FILE = ".jwt_secret"


def read_or_create_jwt_secret(file_store: FileStore) -> str:
    """The store's `.jwt_secret`, created (random, owner-only where the store can) if missing."""
    try:
        return file_store.read(JWT_SECRET_FILE)
    except FileNotFoundError:
        value = secrets.token_hex(16)
        file_store.write_private(JWT_SECRET_FILE, value)
        return value


def ensure_jwt_secret(config: OpenHandsConfig) -> SecretStr:
    """``config.jwt_secret``, read from or created in the configured file store when unset.

    A ``memory`` store is new on every call, so such a config gets a fresh random secret.
    """
    if config.jwt_secret is None or not config.jwt_secret.get_secret_value():
        # No web hook: the secret must not be mirrored anywhere.
        store = get_file_store(config.file_store, config.file_store_path)
        config.jwt_secret = SecretStr(read_or_create_jwt_secret(store))
        # Config loading masks the secrets it finds; this one comes later.
        register_secret(config.jwt_secret)
    return config.jwt_secret
