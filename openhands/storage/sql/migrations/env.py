"""Alembic environment: runs on the connection ``openhands.storage.sql.migrate`` hands over.

That caller holds the migration advisory lock in the same transaction, so this file never
opens connections of its own (and never sees the database URL).
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from openhands.storage.sql.migrate import VERSION_TABLE
from openhands.storage.sql.tables import metadata

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError(
        "Run the migrations with `python -m openhands.storage.sql upgrade` "
        "(or openhands.storage.sql.migrate.upgrade), not the alembic command."
    )
context.configure(
    connection=connection,
    target_metadata=metadata,
    version_table=VERSION_TABLE,
    transactional_ddl=True,
)
with context.begin_transaction():
    context.run_migrations()
