"""ConversationStore on a FileStore: one ``sessions/<sid>/metadata.json`` per conversation."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass

from openhands.storage.conversation.conversation_store import ConversationStore
from openhands.storage.conversation.paging import offset_to_page_id, page_id_to_offset
from openhands.storage.data_models.conversation_metadata import ConversationMetadata
from openhands.storage.data_models.conversation_metadata_result_set import (
    ConversationMetadataResultSet,
)
from openhands.storage.factory import FileStoreConfig, get_file_store_from_config
from openhands.storage.files import FileStore
from openhands.storage.locations import CONVERSATION_BASE_DIR, get_conversation_metadata_filename

logger = logging.getLogger(__name__)

_LEGACY_KEYS = ("github_user_id",)


def parse_metadata(text: str, path: str) -> ConversationMetadata:
    """Decode a metadata file. One without ``created_at`` counts as missing."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    if "created_at" not in data:
        raise FileNotFoundError(path)
    for key in _LEGACY_KEYS:
        data.pop(key, None)
    return ConversationMetadata.model_validate(data)


@dataclass
class FileConversationStore(ConversationStore):
    """Metadata always lives at ``sessions/<sid>/metadata.json``, whatever the user id."""

    file_store: FileStore

    # --- sync core (runs in a worker thread) --------------------------------------------

    def _read(self, conversation_id: str) -> ConversationMetadata:
        path = get_conversation_metadata_filename(conversation_id)
        return parse_metadata(self.file_store.read(path), path)

    def _conversation_ids(self) -> list[str]:
        try:
            entries = self.file_store.list(f"{CONVERSATION_BASE_DIR}/")
        except FileNotFoundError:
            return []
        ids = []
        for entry in entries:
            if not entry.endswith("/"):
                continue  # a stray file, not a conversation directory
            name = entry.rstrip("/").rsplit("/", 1)[-1]
            if name and not name.startswith("."):
                ids.append(name)
        return ids

    def _load_all(self) -> list[ConversationMetadata]:
        found: list[ConversationMetadata] = []
        for conversation_id in self._conversation_ids():
            try:
                found.append(self._read(conversation_id))
            except FileNotFoundError:
                # A conversation directory without (complete) metadata, e.g. one whose
                # events were written before its metadata. Not an error.
                logger.debug("No metadata for conversation %s", conversation_id)
            except ValueError as error:  # bad JSON or bad fields (ValidationError too)
                logger.warning("Skipping unreadable metadata of %s: %s", conversation_id, error)
        return found

    def _search(self, page_id: str | None, limit: int) -> ConversationMetadataResultSet:
        if limit < 0:
            raise ValueError("limit must not be negative")
        start = page_id_to_offset(page_id)
        conversations = self._load_all()
        conversations.sort(key=lambda metadata: metadata.created_at, reverse=True)
        end = start + limit
        return ConversationMetadataResultSet(
            results=conversations[start:end],
            next_page_id=offset_to_page_id(end, end < len(conversations)),
        )

    # --- ConversationStore ---------------------------------------------------------------

    async def save_metadata(self, metadata: ConversationMetadata) -> None:
        path = get_conversation_metadata_filename(metadata.conversation_id)
        await asyncio.to_thread(self.file_store.write, path, metadata.model_dump_json())

    async def get_metadata(self, conversation_id: str) -> ConversationMetadata:
        return await asyncio.to_thread(self._read, conversation_id)

    async def delete_metadata(self, conversation_id: str) -> None:
        path = get_conversation_metadata_filename(conversation_id)
        await asyncio.to_thread(self.file_store.delete, path)

    async def exists(self, conversation_id: str) -> bool:
        try:
            await self.get_metadata(conversation_id)
        except FileNotFoundError:
            return False
        except ValueError as error:  # bad JSON or bad fields (ValidationError too)
            logger.warning("Unreadable metadata of %s: %s", conversation_id, error)
            return False
        return True

    async def search(
        self, page_id: str | None = None, limit: int = 20
    ) -> ConversationMetadataResultSet:
        return await asyncio.to_thread(self._search, page_id, limit)

    @classmethod
    async def get_instance(
        cls, config: FileStoreConfig, user_id: str | None
    ) -> FileConversationStore:
        return cls(get_file_store_from_config(config))
