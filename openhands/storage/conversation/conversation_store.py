"""The ConversationStore seam: where conversation metadata is kept and searched."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import TYPE_CHECKING

from openhands.storage.data_models.conversation_metadata import ConversationMetadata
from openhands.storage.data_models.conversation_metadata_result_set import (
    ConversationMetadataResultSet,
)

if TYPE_CHECKING:
    from openhands.storage.factory import FileStoreConfig


class ConversationStore(ABC):
    """Async store of ConversationMetadata, one record per conversation id."""

    @abstractmethod
    async def save_metadata(self, metadata: ConversationMetadata) -> None:
        """Create or replace the record of ``metadata.conversation_id``."""

    @abstractmethod
    async def get_metadata(self, conversation_id: str) -> ConversationMetadata:
        """The record of ``conversation_id``; raises FileNotFoundError when there is none."""

    @abstractmethod
    async def delete_metadata(self, conversation_id: str) -> None:
        """Remove the record; a missing one is not an error."""

    @abstractmethod
    async def exists(self, conversation_id: str) -> bool:
        """Whether a (readable) record exists."""

    @abstractmethod
    async def search(
        self, page_id: str | None = None, limit: int = 20
    ) -> ConversationMetadataResultSet:
        """One page of records, newest ``created_at`` first.

        ``page_id`` is the ``next_page_id`` of the previous page (None for the first);
        an id this store did not hand out raises InvalidPageIdError (a ValueError).
        """

    async def get_all_metadata(self, conversation_ids: Iterable[str]) -> list[ConversationMetadata]:
        """The records of several conversations, in the given order (all must exist)."""
        return list(await asyncio.gather(*(self.get_metadata(cid) for cid in conversation_ids)))

    async def validate_metadata(self, conversation_id: str, user_id: str | None) -> bool:
        """Whether the conversation exists and belongs to ``user_id``.

        Ownership is an exact match, so in single-user mode (user id None) the owner of
        every conversation is None too.
        """
        try:
            metadata = await self.get_metadata(conversation_id)
        except FileNotFoundError:
            return False
        return metadata.user_id == user_id

    @classmethod
    @abstractmethod
    async def get_instance(cls, config: FileStoreConfig, user_id: str | None) -> ConversationStore:
        """The store for ``user_id`` under the given configuration."""
