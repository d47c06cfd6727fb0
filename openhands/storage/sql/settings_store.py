"""SettingsStore on PostgreSQL: the ``settings.json`` document in ``user_settings``."""

from __future__ import annotations

import json
from dataclasses import dataclass

from openhands.core.config.config_utils import EXPOSE_SECRETS
from openhands.storage.data_models.settings import Settings
from openhands.storage.factory import FileStoreConfig
from openhands.storage.settings.settings_store import SettingsStore
from openhands.storage.sql.database import Database, get_database
from openhands.storage.sql.tables import user_settings
from openhands.storage.sql.user_documents import load_document, store_document, user_key


@dataclass
class SqlSettingsStore(SettingsStore):
    """The settings of one user (``key`` from ``user_documents.user_key``)."""

    database: Database
    key: str

    async def load(self) -> Settings | None:
        text = await load_document(self.database, user_settings, self.key)
        return None if text is None else Settings.model_validate(json.loads(text))

    async def store(self, settings: Settings) -> None:
        text = settings.model_dump_json(context={EXPOSE_SECRETS: True})
        await store_document(self.database, user_settings, self.key, text)

    @classmethod
    async def get_instance(cls, config: FileStoreConfig, user_id: str | None) -> SqlSettingsStore:
        return cls(get_database(), user_key(user_id))
