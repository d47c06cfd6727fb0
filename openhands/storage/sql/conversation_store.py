"""ConversationStore on PostgreSQL: one ``conversation_metadata`` row per conversation.

Same behaviour as FileConversationStore (newest ``created_at`` first, the ``owner`` filter
applied before paging, InvalidPageIdError for a bad page id, FileNotFoundError for a
missing record) with two differences:

- page ids are keyset cursors (see ``page_tokens``), so any page is an index range scan of
  ``limit + 1`` rows; equal ``created_at`` values are ordered by conversation id, newest
  (greatest) first;
- a store for a user (``get_instance(config, "alice")``) only ever reads, lists, changes or
  deletes that user's rows, and refuses to write a record owned by someone else. The store
  for ``None`` (single-user mode, and the server's shared store, which checks ownership
  itself) sees every row, as the file store does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from sqlalchemy import ColumnElement, RowMapping, Select, delete, select, true, tuple_
from sqlalchemy.dialects.postgresql import insert

from openhands.storage.conversation.conversation_store import ConversationStore
from openhands.storage.conversation.paging import offset_to_page_id
from openhands.storage.data_models.conversation_metadata import ConversationMetadata
from openhands.storage.data_models.conversation_metadata_result_set import (
    ConversationMetadataResultSet,
)
from openhands.storage.factory import FileStoreConfig
from openhands.storage.sql.database import Database, get_database
from openhands.storage.sql.page_tokens import Keyset, keyset_page_id, parse_page_id
from openhands.storage.sql.tables import conversation_metadata as table

_ORDER = (table.c.created_at.desc(), table.c.conversation_id.desc())


def metadata_to_row(metadata: ConversationMetadata) -> dict[str, Any]:
    """The column values of ``metadata`` (enums as their values)."""
    row: dict[str, Any] = {}
    for column in table.columns:
        value = getattr(metadata, column.name)
        row[column.name] = value.value if isinstance(value, Enum) else value
    return row


def row_to_metadata(row: RowMapping) -> ConversationMetadata:
    return ConversationMetadata.model_validate(dict(row))


@dataclass
class SqlConversationStore(ConversationStore):
    """Rows of ``user_id`` only when it is set; every row when it is None."""

    database: Database
    user_id: str | None = None
    _scope: ColumnElement[bool] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._scope = true() if self.user_id is None else table.c.user_id == self.user_id

    async def save_metadata(self, metadata: ConversationMetadata) -> None:
        if self.user_id is not None and metadata.user_id != self.user_id:
            raise PermissionError(
                f"The store of one user cannot save conversation {metadata.conversation_id} "
                "for another"
            )
        row = metadata_to_row(metadata)
        insert_row = insert(table).values(row)
        statement = insert_row.on_conflict_do_update(
            index_elements=[table.c.conversation_id],
            set_={name: insert_row.excluded[name] for name in row if name != "conversation_id"},
            where=self._scope,
        ).returning(table.c.conversation_id)
        engine = await self.database.ready()
        async with engine.begin() as connection:
            saved = (await connection.execute(statement)).first()
        if saved is None:  # the id exists and belongs to another user
            raise PermissionError(f"Conversation {metadata.conversation_id} has another owner")

    async def get_metadata(self, conversation_id: str) -> ConversationMetadata:
        found = await self._get_found([conversation_id])
        if conversation_id not in found:
            raise FileNotFoundError(conversation_id)
        return found[conversation_id]

    async def _get_found(self, conversation_ids: Iterable[str]) -> dict[str, ConversationMetadata]:
        """The records that exist among ``conversation_ids``, by id, in one query."""
        ids = list(dict.fromkeys(conversation_ids))
        if not ids:
            return {}
        query = select(table).where(table.c.conversation_id.in_(ids), self._scope)
        engine = await self.database.ready()
        async with engine.connect() as connection:
            rows = (await connection.execute(query)).mappings().all()
        return {row["conversation_id"]: row_to_metadata(row) for row in rows}

    async def get_all_metadata(self, conversation_ids: Iterable[str]) -> list[ConversationMetadata]:
        ids = list(conversation_ids)
        found = await self._get_found(ids)
        missing = [cid for cid in ids if cid not in found]
        if missing:
            raise FileNotFoundError(missing[0])
        return [found[cid] for cid in ids]

    async def delete_metadata(self, conversation_id: str) -> None:
        statement = delete(table).where(table.c.conversation_id == conversation_id, self._scope)
        engine = await self.database.ready()
        async with engine.begin() as connection:
            await connection.execute(statement)

    async def exists(self, conversation_id: str) -> bool:
        query = select(table.c.conversation_id).where(
            table.c.conversation_id == conversation_id, self._scope
        )
        engine = await self.database.ready()
        async with engine.connect() as connection:
            return (await connection.execute(query)).first() is not None

    def search_query(
        self, position: Keyset | int, limit: int, owner: str | None = None
    ) -> Select[Any]:
        """The SELECT of one page plus one row (which tells whether another page follows)."""
        query = select(table).where(self._scope)
        if owner is not None:
            query = query.where(table.c.user_id == owner)
        if isinstance(position, Keyset):
            query = query.where(
                tuple_(table.c.created_at, table.c.conversation_id)
                < tuple_(position.created_at, position.conversation_id)
            )
        elif position:
            query = query.offset(position)
        return query.order_by(*_ORDER).limit(limit + 1)

    async def search(
        self, page_id: str | None = None, limit: int = 20, *, owner: str | None = None
    ) -> ConversationMetadataResultSet:
        """See the seam; ``owner`` (when not None) keeps only that user's conversations,
        before paging, as FileConversationStore.search does."""
        if limit < 0:
            raise ValueError("limit must not be negative")
        position = parse_page_id(page_id)
        engine = await self.database.ready()
        async with engine.connect() as connection:
            query = self.search_query(position, limit, owner)
            rows = (await connection.execute(query)).mappings().all()
        results = [row_to_metadata(row) for row in rows[:limit]]
        next_page_id: str | None = None
        if len(rows) > limit:
            if results:
                last = results[-1]
                next_page_id = keyset_page_id(last.created_at, last.conversation_id)
            else:  # limit 0: the next page starts where this one did
                next_page_id = page_id or offset_to_page_id(0, True)
        return ConversationMetadataResultSet(results=results, next_page_id=next_page_id)

    @classmethod
    async def get_instance(
        cls, config: FileStoreConfig, user_id: str | None
    ) -> SqlConversationStore:
        return cls(get_database(), user_id)
