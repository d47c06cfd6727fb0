"""Two real server processes, each with its own file store, sharing one PostgreSQL.

Selected only through the environment (``*_STORE_CLASS``, ``OPENHANDS_DATABASE_URL``):
what one node stores, the other serves.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx

from openhands.storage.data_models.conversation_metadata import ConversationMetadata
from openhands.storage.sql.conversation_store import SqlConversationStore
from openhands.storage.sql.database import Database
from tests.server.helpers import scripted_agent, settings_body, wait_agent_state, wait_status
from tests.server.server_process import ServerProcess
from tests.support.scripted_llm import ScriptedLLMServer
from tests.support.services import PostgresService

SQL_STORES = {
    "SETTINGS_STORE_CLASS": "openhands.storage.sql.settings_store.SqlSettingsStore",
    "SECRET_STORE_CLASS": "openhands.storage.sql.secrets_store.SqlSecretsStore",
    "CONVERSATION_STORE_CLASS": "openhands.storage.sql.conversation_store.SqlConversationStore",
}


async def poll(check: Callable[[], Awaitable[object]], timeout: float = 60.0) -> object:
    """``check()``'s first truthy answer, asked every 0.2 s until ``timeout``; else None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = await check()
        if answer:
            return answer
        await asyncio.sleep(0.2)
    return None


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


async def test_a_running_conversation_keeps_its_metadata_in_postgresql(
    postgres: PostgresService, database: Database, tmp_path: Path
) -> None:
    """The title and last update a running conversation writes land in the SQL store, so the
    other node lists them (they used to go to a metadata.json beside the events)."""
    env = {**SQL_STORES, "OPENHANDS_DATABASE_URL": postgres.url}
    with (
        ScriptedLLMServer([], fallback=scripted_agent) as llm,
        ServerProcess(tmp_path / "node-a", env=env) as node_a,
        ServerProcess(tmp_path / "node-b", env=env) as node_b,
    ):
        async with httpx.AsyncClient(base_url=node_a.url, timeout=60) as client:
            stored = await client.post("/api/settings", json=settings_body(llm.base_url))
            assert stored.status_code == 200, stored.text
            created = await client.post("/api/conversations", json={"initial_user_msg": "hi"})
            assert created.status_code == 200, created.text
            conversation_id = created.json()["conversation_id"]
            await wait_status(client, conversation_id, "RUNNING")
            await wait_agent_state(client, conversation_id, "awaiting_user_input")

            async def titled() -> dict[str, object] | None:
                listed = (await client.get(f"{node_b.url}/api/conversations")).json()
                for item in listed["results"]:
                    if item["conversation_id"] == conversation_id and (
                        item["title"] == "Scripted title" and item["last_updated_at"]
                    ):
                        return item
                return None

            assert await poll(titled), "node B never listed the title node A's agent wrote"
            record = await SqlConversationStore(database).get_metadata(conversation_id)
            assert record.title == "Scripted title"
            assert record.last_updated_at is not None
            await client.post(f"/api/conversations/{conversation_id}/stop")
        assert not list((node_a.root / "store").rglob("metadata.json"))
