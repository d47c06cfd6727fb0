"""Schema migrations: Alembic, run under a PostgreSQL advisory lock.

``upgrade`` takes a transaction-scoped advisory lock, then runs Alembic on that same
connection and transaction. Nodes that start together queue on the lock; each one after
the first finds the schema at head and does nothing. PostgreSQL DDL is transactional, so a
failed upgrade leaves the previous schema intact and releases the lock.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
# Our own version table, so another Alembic-managed app may share the database.
VERSION_TABLE = "openhands_alembic_version"
# Any fixed 64-bit number; this one spells "OHmigr8" in ASCII.
MIGRATION_LOCK_KEY = 0x4F484D6967723800


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config for the packaged migrations, running on ``connection``."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest revision the packaged migrations know."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError(f"No migrations under {MIGRATIONS_DIR}")
    return head


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Bring the schema to ``revision``, one node at a time."""
    async with engine.begin() as connection:
        await connection.execute(
            text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY}
        )
        await connection.run_sync(lambda sync: command.upgrade(alembic_config(sync), revision))


async def current_revision(engine: AsyncEngine) -> str | None:
    """The revision the database is at; None before the first upgrade."""
    async with engine.connect() as connection:
        return await connection.run_sync(
            lambda sync: MigrationContext.configure(
                sync, opts={"version_table": VERSION_TABLE}
            ).get_current_revision()
        )
