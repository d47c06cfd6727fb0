"""One JSON document per user in a ``(user_id, data, updated_at)`` table.

The settings and secrets stores keep exactly what their file versions write to
``settings.json`` / ``secrets.json``, secret values included (the file stores do not
encrypt either; protect the database as you would the files). Single-user mode (user id
None) uses the key ``""``, which no user can have.
"""

from __future__ import annotations

from sqlalchemy import Table, func, select
from sqlalchemy.dialects.postgresql import insert

from openhands.storage.sql.database import Database

SINGLE_USER_KEY = ""


def user_key(user_id: str | None) -> str:
    """The row key of ``user_id``; the empty string is not a user id."""
    if user_id is None:
        return SINGLE_USER_KEY
    if not user_id:
        raise ValueError(f"Invalid user id: {user_id!r}")
    return user_id


async def load_document(database: Database, table: Table, key: str) -> str | None:
    engine = await database.ready()
    async with engine.connect() as connection:
        return (
            await connection.execute(select(table.c.data).where(table.c.user_id == key))
        ).scalar_one_or_none()


async def store_document(database: Database, table: Table, key: str, data: str) -> None:
    statement = insert(table).values(user_id=key, data=data)
    statement = statement.on_conflict_do_update(
        index_elements=[table.c.user_id],
        set_={"data": statement.excluded.data, "updated_at": func.now()},
    )
    engine = await database.ready()
    async with engine.begin() as connection:
        await connection.execute(statement)
