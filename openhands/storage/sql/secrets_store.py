"""SecretsStore on PostgreSQL: the ``secrets.json`` document in ``user_secrets``."""

from __future__ import annotations

import json
from dataclasses import dataclass

from openhands.core.config.config_utils import EXPOSE_SECRETS
from openhands.storage.data_models.user_secrets import UserSecrets
from openhands.storage.factory import FileStoreConfig
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.sql.database import Database, get_database
from openhands.storage.sql.tables import user_secrets
from openhands.storage.sql.user_documents import load_document, store_document, user_key


@dataclass
class SqlSecretsStore(SecretsStore):
    """The provider tokens and custom secrets of one user."""

    database: Database
    key: str

    async def load(self) -> UserSecrets | None:
        text = await load_document(self.database, user_secrets, self.key)
        return None if text is None else UserSecrets.model_validate(json.loads(text))

    async def store(self, secrets: UserSecrets) -> None:
        text = secrets.model_dump_json(context={EXPOSE_SECRETS: True})
        await store_document(self.database, user_secrets, self.key, text)

    @classmethod
    async def get_instance(cls, config: FileStoreConfig, user_id: str | None) -> SqlSecretsStore:
        return cls(get_database(), user_key(user_id))
