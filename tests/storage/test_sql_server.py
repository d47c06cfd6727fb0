"""Two real server processes, each with its own file store, sharing one PostgreSQL.

Selected only through the environment (``*_STORE_CLASS``, ``OPENHANDS_DATABASE_URL``):
what one node stores, the other serves.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import httpx

from openhands.storage.data_models.conversation_metadata import ConversationMetadata
from openhands.storage.sql.conversation_store import SqlConversationStore
from openhands.storage.sql.database import Database
from tests.server.server_process import ServerProcess
from tests.support.services import PostgresService

SQL_STORES = {
    "SETTINGS_STORE_CLASS": "openhands.storage.sql.settings_store.SqlSettingsStore",
    "SECRET_STORE_CLASS": "openhands.storage.sql.secrets_store.SqlSecretsStore",
    "CONVERSATION_STORE_CLASS": "openhands.storage.sql.conversation_store.SqlConversationStore",
}


async def test_two_nodes_share_settings_secrets_and_conversations(
    postgres: PostgresService, database: Database, tmp_path: Path
) -> None:
    env = {**SQL_STORES, "OPENHANDS_DATABASE_URL": postgres.url}
    with (
        ServerProcess(tmp_path / "node-a", env=env) as node_a,
        ServerProcess(tmp_path / "node-b", env=env) as node_b,
    ):
        async with httpx.AsyncClient(timeout=30) as client:
            stored = await client.post(
                f"{node_a.url}/api/settings",
                json={"llm_model": "openai/shared-model", "llm_api_key": "sk-shared"},
            )
            assert stored.status_code == 200, stored.text
            created = await client.post(
                f"{node_a.url}/api/secrets",
                json={"name": "SHARED", "value": "v", "description": "d"},
            )
            assert created.status_code == 201, created.text

            settings = (await client.get(f"{node_b.url}/api/settings")).json()
            assert settings["llm_model"] == "openai/shared-model"
            assert settings["llm_api_key_set"] is True
            secrets = (await client.get(f"{node_b.url}/api/secrets")).json()
            assert secrets["custom_secrets"] == [{"name": "SHARED", "description": "d"}]

            await SqlConversationStore(database).save_metadata(
                ConversationMetadata(conversation_id="shared1", created_at=datetime.now(UTC))
            )
            listed = (await client.get(f"{node_b.url}/api/conversations")).json()
            assert [c["conversation_id"] for c in listed["results"]] == ["shared1"]
        # Neither node wrote settings or secrets files of its own.
        for node in (node_a, node_b):
            assert not list(node.root.rglob("settings.json"))
            assert not list(node.root.rglob("secrets.json"))
