"""SettingsStore on a FileStore: ``settings.json`` (``users/<user_id>/settings.json`` per user)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

from openhands.core.config.config_utils import EXPOSE_SECRETS
from openhands.storage.data_models.settings import Settings
from openhands.storage.factory import FileStoreConfig, file_store_args, get_file_store
from openhands.storage.files import FileStore
from openhands.storage.settings.settings_store import SettingsStore
from openhands.storage.user_paths import user_file_path

SETTINGS_FILENAME = "settings.json"


@dataclass
class FileSettingsStore(SettingsStore):
    """The file holds API keys in clear text, so it is written owner-only (0600)."""

    file_store: FileStore
    path: str = SETTINGS_FILENAME

    def _load(self) -> Settings | None:
        try:
            text = self.file_store.read(self.path)
        except FileNotFoundError:
            return None
        return Settings.model_validate(json.loads(text))

    def _store(self, settings: Settings) -> None:
        text = settings.model_dump_json(context={EXPOSE_SECRETS: True})
        self.file_store.write_private(self.path, text)

    async def load(self) -> Settings | None:
        return await asyncio.to_thread(self._load)

    async def store(self, settings: Settings) -> None:
        await asyncio.to_thread(self._store, settings)

    @classmethod
    async def get_instance(cls, config: FileStoreConfig, user_id: str | None) -> FileSettingsStore:
        return cls(
            get_file_store(**file_store_args(config)),
            user_file_path(SETTINGS_FILENAME, user_id),
        )
