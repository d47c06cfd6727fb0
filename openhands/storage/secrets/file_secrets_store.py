"""SecretsStore on a FileStore: ``secrets.json`` (``users/<user_id>/secrets.json`` per user)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

from openhands.core.config.config_utils import EXPOSE_SECRETS
from openhands.storage.data_models.user_secrets import UserSecrets
from openhands.storage.factory import FileStoreConfig, file_store_args, get_file_store
from openhands.storage.files import FileStore
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.user_paths import user_file_path

SECRETS_FILENAME = "secrets.json"


@dataclass
class FileSecretsStore(SecretsStore):
    """The file holds tokens and secrets in clear text, so it is written owner-only (0600)."""

    file_store: FileStore
    path: str = SECRETS_FILENAME

    def _load(self) -> UserSecrets | None:
        try:
            text = self.file_store.read(self.path)
        except FileNotFoundError:
            return None
        return UserSecrets.model_validate(json.loads(text))

    def _store(self, secrets: UserSecrets) -> None:
        text = secrets.model_dump_json(context={EXPOSE_SECRETS: True})
        self.file_store.write_private(self.path, text)

    async def load(self) -> UserSecrets | None:
        return await asyncio.to_thread(self._load)

    async def store(self, secrets: UserSecrets) -> None:
        await asyncio.to_thread(self._store, secrets)

    @classmethod
    async def get_instance(cls, config: FileStoreConfig, user_id: str | None) -> FileSecretsStore:
        return cls(
            get_file_store(**file_store_args(config)),
            user_file_path(SECRETS_FILENAME, user_id),
        )
