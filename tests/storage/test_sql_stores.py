"""The PostgreSQL stores against a real PostgreSQL 15.

The behavioural cases of the file stores run over both implementations (``kind`` is
``file`` or ``sql``); then what only the SQL stores promise: user scoping, keyset paging
over equal timestamps, migrations (schema = models, two nodes migrating at once, the CLI),
selection through the server config, and no secret or password in logs and output.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from pydantic import SecretStr
from sqlalchemy import inspect, text, update
from sqlalchemy.ext.asyncio import create_async_engine

from openhands.integrations.service_types import ProviderType
from openhands.server.server_config import ServerConfig
from openhands.storage.conversation.conversation_store import ConversationStore
from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.conversation.paging import InvalidPageIdError
from openhands.storage.data_models.conversation_metadata import (
    ConversationMetadata,
    ConversationTrigger,
)
from openhands.storage.data_models.settings import Settings
from openhands.storage.data_models.user_secrets import UserSecrets
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore
from openhands.storage.secrets.file_secrets_store import FileSecretsStore
from openhands.storage.secrets.secrets_store import SecretsStore
from openhands.storage.settings.file_settings_store import FileSettingsStore
from openhands.storage.settings.settings_store import SettingsStore
from openhands.storage.sql import database as database_module
from openhands.storage.sql.conversation_store import SqlConversationStore
from openhands.storage.sql.database import Database, dispose_database, get_database
from openhands.storage.sql.migrate import VERSION_TABLE, current_revision, head_revision
from openhands.storage.sql.secrets_store import SqlSecretsStore
from openhands.storage.sql.settings_store import SqlSettingsStore
from openhands.storage.sql.tables import metadata as table_metadata
from openhands.storage.sql.tables import user_settings
from openhands.storage.sql.user_documents import user_key
from openhands.utils.import_utils import get_impl
from tests.support.services import PostgresService

REPO_ROOT = Path(__file__).resolve().parents[2]
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)

AnyConversationStore = FileConversationStore | SqlConversationStore


def _metadata(index: int, **fields: object) -> ConversationMetadata:
    return ConversationMetadata(
        conversation_id=f"conv{index:02d}",
        created_at=EPOCH + timedelta(minutes=index),
        title=f"Conversation {index}",
        **fields,  # type: ignore[arg-type]
    )


def _ids(results: list[ConversationMetadata]) -> list[str]:
    return [m.conversation_id for m in results]


def _file_config(tmp_path: Path) -> SimpleNamespace:
    return SimpleNamespace(
        file_store="local",
        file_store_path=str(tmp_path),
        file_store_web_hook_url=None,
        file_store_web_hook_headers=None,
        file_store_web_hook_batch=False,
    )


# --- both implementations ------------------------------------------------------------------


@pytest.fixture(params=["file", "sql"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def sql_database(kind: str, request: pytest.FixtureRequest) -> Database | None:
    """The clean database for the ``sql`` cases (PostgreSQL is only started for those)."""
    return request.getfixturevalue("database") if kind == "sql" else None


@pytest.fixture
def conversation_store(sql_database: Database | None) -> AnyConversationStore:
    if sql_database is None:
        return FileConversationStore(InMemoryFileStore())
    return SqlConversationStore(sql_database)


async def _store_with(store: AnyConversationStore, count: int) -> AnyConversationStore:
    # Saved in a scrambled order, so the sort really has to happen.
    for index in sorted(range(count), key=lambda i: (i * 7) % count):
        await store.save_metadata(_metadata(index))
    return store


async def test_metadata_round_trip(conversation_store: AnyConversationStore) -> None:
    metadata = _metadata(
        1,
        user_id="u1",
        selected_repository="o/r",
        selected_branch="main",
        git_provider=ProviderType.GITHUB,
        trigger=ConversationTrigger.GUI,
        pr_number=[3, 7],
        last_updated_at=EPOCH + timedelta(hours=2, microseconds=5),
        llm_model="anthropic/claude",
        accumulated_cost=0.125,
        prompt_tokens=10,
        completion_tokens=20,
        total_tokens=30,
    )
    await conversation_store.save_metadata(metadata)
    assert await conversation_store.get_metadata("conv01") == metadata
    assert await conversation_store.exists("conv01")
    renamed = metadata.model_copy(update={"title": "renamed", "pr_number": []})
    await conversation_store.save_metadata(renamed)
    assert await conversation_store.get_metadata("conv01") == renamed


async def test_missing_metadata(conversation_store: AnyConversationStore) -> None:
    with pytest.raises(FileNotFoundError):
        await conversation_store.get_metadata("nope")
    assert not await conversation_store.exists("nope")
    await conversation_store.delete_metadata("nope")


async def test_delete_metadata(conversation_store: AnyConversationStore) -> None:
    store = await _store_with(conversation_store, 2)
    await store.delete_metadata("conv00")
    assert not await store.exists("conv00")
    assert await store.exists("conv01")


async def test_search_is_newest_first_and_pages(conversation_store: AnyConversationStore) -> None:
    store = await _store_with(conversation_store, 45)
    first = await store.search(limit=20)
    assert _ids(first.results) == [f"conv{i:02d}" for i in range(44, 24, -1)]
    second = await store.search(first.next_page_id, limit=20)
    assert _ids(second.results) == [f"conv{i:02d}" for i in range(24, 4, -1)]
    last = await store.search(second.next_page_id, limit=20)
    assert _ids(last.results) == [f"conv{i:02d}" for i in range(4, -1, -1)]
    assert last.next_page_id is None
    if isinstance(store, FileConversationStore):
        assert (first.next_page_id, second.next_page_id) == ("MjA=", "NDA=")


async def test_search_default_limit_and_exact_fit(conversation_store: AnyConversationStore) -> None:
    store = await _store_with(conversation_store, 20)
    page = await store.search()
    assert len(page.results) == 20
    assert page.next_page_id is None


async def test_search_on_an_empty_store(conversation_store: AnyConversationStore) -> None:
    page = await conversation_store.search()
    assert page.results == []
    assert page.next_page_id is None


async def test_a_zero_limit_page_keeps_its_place(conversation_store: AnyConversationStore) -> None:
    store = await _store_with(conversation_store, 3)
    empty = await store.search(limit=0)
    assert empty.results == []
    assert empty.next_page_id is not None
    page = await store.search(empty.next_page_id, limit=10)
    assert _ids(page.results) == ["conv02", "conv01", "conv00"]


async def test_search_rejects_a_malformed_page_id(conversation_store: AnyConversationStore) -> None:
    store = await _store_with(conversation_store, 2)
    for bad in ("%%%", "bm90LWEtbnVtYmVy", "LTU=", "é"):  # not base64, "not-a-number", "-5"
        with pytest.raises(InvalidPageIdError):
            await store.search(bad)
    with pytest.raises(ValueError):
        await store.search(None, limit=-1)


async def test_get_all_metadata_and_validate_metadata(
    conversation_store: AnyConversationStore,
) -> None:
    store = conversation_store
    await store.save_metadata(_metadata(1))
    await store.save_metadata(_metadata(2, user_id="alice"))
    found = await store.get_all_metadata(["conv02", "conv01"])
    assert _ids(found) == ["conv02", "conv01"]
    with pytest.raises(FileNotFoundError):
        await store.get_all_metadata(["conv01", "missing"])
    assert await store.validate_metadata("conv01", None)
    assert not await store.validate_metadata("conv01", "alice")
    assert await store.validate_metadata("conv02", "alice")
    assert not await store.validate_metadata("conv02", "bob")
    assert not await store.validate_metadata("missing", None)


async def test_owner_filter_pages_within_the_owners_conversations(
    conversation_store: AnyConversationStore,
) -> None:
    store = conversation_store
    for index in range(10):
        await store.save_metadata(_metadata(index, user_id="alice" if index % 2 else "bob"))
    first = await store.search(limit=3, owner="alice")
    assert _ids(first.results) == ["conv09", "conv07", "conv05"]
    rest = await store.search(first.next_page_id, limit=3, owner="alice")
    assert _ids(rest.results) == ["conv03", "conv01"]
    assert rest.next_page_id is None
    assert len((await store.search(limit=100)).results) == 10


async def test_pages_over_equal_timestamps_miss_and_repeat_nothing(
    conversation_store: AnyConversationStore,
) -> None:
    store = conversation_store
    ids = [f"same{index:02d}" for index in range(25)]
    for conversation_id in ids:
        await store.save_metadata(
            ConversationMetadata(conversation_id=conversation_id, created_at=EPOCH)
        )
    await store.save_metadata(_metadata(5))  # newer than all of them
    seen: list[str] = []
    page_id: str | None = None
    while True:
        page = await store.search(page_id, limit=7)
        seen.extend(_ids(page.results))
        page_id = page.next_page_id
        if page_id is None:
            break
    assert seen[0] == "conv05"
    assert sorted(seen[1:]) == ids and len(seen) == 26
    if isinstance(store, SqlConversationStore):  # ties: greatest id first
        assert seen[1:] == sorted(ids, reverse=True)


@pytest.fixture
def settings_factory(
    sql_database: Database | None, tmp_path: Path
) -> Callable[[str | None], Awaitable[SettingsStore]]:
    database = sql_database

    async def make(user_id: str | None) -> SettingsStore:
        if database is None:
            return await FileSettingsStore.get_instance(_file_config(tmp_path), user_id)
        return SqlSettingsStore(database, user_key(user_id))

    return make


@pytest.fixture
def secrets_factory(
    sql_database: Database | None, tmp_path: Path
) -> Callable[[str | None], Awaitable[SecretsStore]]:
    database = sql_database

    async def make(user_id: str | None) -> SecretsStore:
        if database is None:
            return await FileSecretsStore.get_instance(_file_config(tmp_path), user_id)
        return SqlSecretsStore(database, user_key(user_id))

    return make


async def test_settings_round_trip_with_real_keys(
    settings_factory: Callable[[str | None], Awaitable[SettingsStore]],
) -> None:
    store = await settings_factory(None)
    assert await store.load() is None
    settings = Settings(
        llm_model="anthropic/claude-sonnet-4-20250514",
        llm_api_key=SecretStr("sk-ant-secret"),
        search_api_key=SecretStr("tvly-secret"),
        sandbox_api_key=SecretStr("sbx-secret"),
        condenser_max_size=120,
        git_user_name="openhands",
    )
    await store.store(settings)
    loaded = await (await settings_factory(None)).load()  # a fresh store: a restart
    assert loaded == settings
    assert loaded is not None and loaded.llm_api_key is not None
    assert loaded.llm_api_key.get_secret_value() == "sk-ant-secret"
    replacement = Settings(language="fr")
    await store.store(replacement)
    assert await store.load() == replacement


async def test_secrets_round_trip(
    secrets_factory: Callable[[str | None], Awaitable[SecretsStore]],
) -> None:
    store = await secrets_factory(None)
    assert await store.load() is None
    secrets = UserSecrets.model_validate(
        {
            "provider_tokens": {"github": {"token": "ghp_1", "host": "github.com"}},
            "custom_secrets": {"DB": {"secret": "pw", "description": "database"}},
        }
    )
    await store.store(secrets)
    loaded = await (await secrets_factory(None)).load()
    assert loaded == secrets
    assert loaded is not None and loaded.get_env_vars() == {"DB": "pw"}


async def test_settings_and_secrets_are_per_user(
    settings_factory: Callable[[str | None], Awaitable[SettingsStore]],
    secrets_factory: Callable[[str | None], Awaitable[SecretsStore]],
) -> None:
    await (await settings_factory("alice")).store(Settings(language="en"))
    await (await secrets_factory("alice")).store(UserSecrets().with_custom_secret("A", "1"))
    assert await (await settings_factory(None)).load() is None
    assert await (await settings_factory("bob")).load() is None
    assert await (await secrets_factory("bob")).load() is None
    assert await (await settings_factory("alice")).load() == Settings(language="en")
    with pytest.raises(ValueError):
        await settings_factory("")
    with pytest.raises(ValueError):
        await secrets_factory("")


async def test_corrupt_settings_is_an_error_not_a_reset(
    sql_database: Database | None, tmp_path: Path
) -> None:
    store: SettingsStore
    if sql_database is None:
        (tmp_path / "settings.json").write_text("{not json")
        store = FileSettingsStore(LocalFileStore(str(tmp_path)))
    else:
        database = sql_database
        store = SqlSettingsStore(database, user_key(None))
        await store.store(Settings())
        async with (await database.ready()).begin() as connection:
            await connection.execute(update(user_settings).values(data="{not json"))
    with pytest.raises(ValueError):
        await store.load()


# --- SQL only: scoping, paging ids -----------------------------------------------------------


async def test_a_users_store_never_reaches_another_users_rows(database: Database) -> None:
    alice = SqlConversationStore(database, "alice")
    bob = SqlConversationStore(database, "bob")
    for index in range(6):
        await (alice if index % 2 else bob).save_metadata(
            _metadata(index, user_id="alice" if index % 2 else "bob")
        )
    assert _ids((await alice.search()).results) == ["conv05", "conv03", "conv01"]
    assert _ids((await alice.search(owner="bob")).results) == []
    with pytest.raises(FileNotFoundError):
        await alice.get_metadata("conv00")
    assert not await alice.exists("conv00")
    assert not await alice.validate_metadata("conv00", "bob")  # not visible to alice at all
    with pytest.raises(FileNotFoundError):
        await alice.get_all_metadata(["conv01", "conv00"])
    await alice.delete_metadata("conv00")
    assert await bob.exists("conv00")
    # Neither writing a record for bob nor taking over bob's conversation id.
    with pytest.raises(PermissionError):
        await alice.save_metadata(_metadata(7, user_id="bob"))
    with pytest.raises(PermissionError):
        await alice.save_metadata(_metadata(0, user_id="alice").model_copy(update={"title": "x"}))
    assert (await bob.get_metadata("conv00")).title == "Conversation 0"
    assert not await bob.exists("conv07")
    # The store for no user (single-user mode, the server's shared store) sees all rows.
    everyone = SqlConversationStore(database)
    assert len((await everyone.search()).results) == 6


async def test_offset_page_ids_of_the_file_store_still_work(database: Database) -> None:
    store = await _store_with(SqlConversationStore(database), 45)
    page = await store.search("MjA=", limit=20)  # base64 of "20", as the file store hands out
    assert _ids(page.results) == [f"conv{i:02d}" for i in range(24, 4, -1)]
    assert page.next_page_id is not None
    rest = await store.search(page.next_page_id, limit=20)
    assert _ids(rest.results) == [f"conv{i:02d}" for i in range(4, -1, -1)]


async def test_malformed_keyset_page_ids(database: Database) -> None:
    store = SqlConversationStore(database)
    for text_ in ("abc:conv01", "12:", "1e5:x", "99999999999999999999999:x"):
        with pytest.raises(InvalidPageIdError):
            await store.search(base64.b64encode(text_.encode()).decode())


async def test_get_instance_reads_the_environment(
    postgres: PostgresService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENHANDS_DATABASE_URL", postgres.url)
    config = SimpleNamespace()
    try:
        conversations = await SqlConversationStore.get_instance(config, None)  # type: ignore[arg-type]
        settings = await SqlSettingsStore.get_instance(config, "carol")  # type: ignore[arg-type]
        secrets = await SqlSecretsStore.get_instance(config, "carol")  # type: ignore[arg-type]
        assert conversations.database is settings.database is secrets.database is get_database()
        await settings.store(Settings(language="de"))
        assert await settings.load() == Settings(language="de")
    finally:
        await dispose_database()
    monkeypatch.delenv("OPENHANDS_DATABASE_URL")
    with pytest.raises(database_module.DatabaseNotConfiguredError):
        await SqlSettingsStore.get_instance(config, None)  # type: ignore[arg-type]


async def test_secrets_and_password_stay_out_of_logs(
    postgres: PostgresService, caplog: pytest.LogCaptureFixture
) -> None:
    url = postgres.url.replace("postgres@", "postgres:hunter2-password@")  # trust auth ignores it
    database = Database(url)
    try:
        with caplog.at_level(logging.DEBUG):
            secrets = SqlSecretsStore(database, "dave")
            await secrets.store(UserSecrets().with_custom_secret("TOKEN", "s3cr3t-value"))
            settings = SqlSettingsStore(database, "dave")
            await settings.store(Settings(llm_api_key=SecretStr("sk-very-secret")))
            assert await secrets.load() is not None and await settings.load() is not None
    finally:
        await database.dispose()
    logged = caplog.text
    for secret in ("s3cr3t-value", "sk-very-secret", "hunter2-password"):
        assert secret not in logged
    assert "hunter2-password" not in repr(database)


# --- migrations ---------------------------------------------------------------------------------


async def test_the_migrated_schema_matches_the_table_models(fresh_database_url: str) -> None:
    database = Database(fresh_database_url)
    try:
        engine = await database.ready()
        assert await current_revision(engine) == head_revision()
        async with engine.connect() as connection:
            differences = await connection.run_sync(
                lambda sync: compare_metadata(
                    MigrationContext.configure(sync, opts={"version_table": VERSION_TABLE}),
                    table_metadata,
                )
            )
        assert differences == []
    finally:
        await database.dispose()


def test_the_table_columns_are_the_metadata_fields() -> None:
    columns = [column.name for column in table_metadata.tables["conversation_metadata"].columns]
    assert columns == list(ConversationMetadata.model_fields)


async def _schema_state(url: str) -> tuple[list[str], list[tuple[str, ...]]]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            tables = await connection.run_sync(lambda sync: sorted(inspect(sync).get_table_names()))
            versions = (await connection.execute(text(f"SELECT * FROM {VERSION_TABLE}"))).all()
    finally:
        await engine.dispose()
    return tables, [tuple(row) for row in versions]


async def test_two_engines_migrating_at_once(fresh_database_url: str) -> None:
    nodes = [Database(fresh_database_url) for _ in range(4)]
    try:
        await asyncio.gather(*(node.ready() for node in nodes))
        store = SqlConversationStore(nodes[1])
        await store.save_metadata(_metadata(1))
        assert await SqlConversationStore(nodes[3]).exists("conv01")
    finally:
        await asyncio.gather(*(node.dispose() for node in nodes))
    tables, versions = await _schema_state(fresh_database_url)
    assert tables == ["conversation_metadata", VERSION_TABLE, "user_secrets", "user_settings"]
    assert versions == [(head_revision(),)]


def _cli(url: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "OPENHANDS_DATABASE_URL": url, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "openhands.storage.sql", *args],
        env=env,
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def test_two_processes_upgrading_at_once_with_the_cli(fresh_database_url: str) -> None:
    url = fresh_database_url.replace("postgres@", "postgres:hunter2-password@")
    processes = [_cli(url, "upgrade") for _ in range(3)]
    outputs = [await asyncio.to_thread(process.communicate, timeout=120) for process in processes]
    for process, (out, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err
        assert f"at revision {head_revision()}" in out
        assert "hunter2-password" not in out + err
    tables, versions = await _schema_state(fresh_database_url)
    assert "conversation_metadata" in tables
    assert versions == [(head_revision(),)]
    current = _cli(url, "current")
    out, _ = await asyncio.to_thread(current.communicate, timeout=120)
    assert f"at revision {head_revision()}" in out


def test_the_cli_without_a_url_says_so() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENHANDS_DATABASE_URL"}
    result = subprocess.run(
        [sys.executable, "-m", "openhands.storage.sql", "current"],
        env={**env, "PYTHONPATH": str(REPO_ROOT)},
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "OPENHANDS_DATABASE_URL" in result.stderr


# --- selection ------------------------------------------------------------------------------


def test_the_server_config_selects_the_sql_stores_from_the_environment() -> None:
    default = ServerConfig.from_env({})
    assert default.conversation_store_class.endswith("FileConversationStore")
    config = ServerConfig.from_env(
        {
            "SETTINGS_STORE_CLASS": "openhands.storage.sql.settings_store.SqlSettingsStore",
            "SECRET_STORE_CLASS": "openhands.storage.sql.secrets_store.SqlSecretsStore",
            "CONVERSATION_STORE_CLASS": (
                "openhands.storage.sql.conversation_store.SqlConversationStore"
            ),
        }
    )
    config.verify_config()
    assert get_impl(SettingsStore, config.settings_store_class) is SqlSettingsStore  # type: ignore[type-abstract]
    assert get_impl(SecretsStore, config.secret_store_class) is SqlSecretsStore  # type: ignore[type-abstract]
    assert get_impl(ConversationStore, config.conversation_store_class) is SqlConversationStore  # type: ignore[type-abstract]


def test_the_server_imports_no_sqlalchemy_by_default() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, json, openhands.server.listen, openhands.storage.sql; "
            "print(json.dumps([m for m in ('sqlalchemy', 'asyncpg', 'alembic') "
            "if m in sys.modules]))",
        ],
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []
