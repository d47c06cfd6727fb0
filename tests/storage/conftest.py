"""A real PostgreSQL 15 per test module, and a clean ``Database`` on it per test."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest
from sqlalchemy import text

from openhands.storage.sql.database import Database
from tests.support.services import PostgresService


@pytest.fixture(scope="module")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresService]:
    service = PostgresService(tmp_path_factory.mktemp("postgres"))
    service.start()
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture
async def database(postgres: PostgresService) -> AsyncIterator[Database]:
    """The module's database at head, emptied."""
    database = Database(postgres.url)
    engine = await database.ready()
    async with engine.begin() as connection:
        await connection.execute(
            text("TRUNCATE conversation_metadata, user_settings, user_secrets")
        )
    yield database
    await database.dispose()


@pytest.fixture
async def fresh_database_url(postgres: PostgresService) -> str:
    """The URL of a new, empty database (no schema yet) on the module's server."""
    name = f"fresh_{uuid.uuid4().hex[:12]}"
    connection = await asyncpg.connect(postgres.dsn)
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()
    return postgres.url.rsplit("/", 1)[0] + f"/{name}"
