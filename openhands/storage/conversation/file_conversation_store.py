"""ConversationStore on a FileStore: one ``sessions/<sid>/metadata.json`` per conversation.

Listing needs every conversation's ``created_at`` (the sort key) and owner, but only one
page of full records. The store keeps those two fields in an in-memory index, filled on
first sight of a conversation directory and kept up to date by this store's own writes;
a listing then reads the directory once plus the records of the page it returns (always
fresh from the files: titles and timestamps change while a conversation runs). Both
indexed fields are fixed when a conversation is created; an entry that does change behind
this store's back (another process) is corrected whenever its record is read for a page.

On local disk the directory listing itself is reused while the ``sessions/`` directory's
modification time is unchanged and at least two seconds old (a younger time could still be
shared by a change made in the same clock tick, so it is never trusted).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field

from openhands.storage.conversation.conversation_store import ConversationStore
from openhands.storage.conversation.paging import offset_to_page_id, page_id_to_offset
from openhands.storage.data_models.conversation_metadata import ConversationMetadata
from openhands.storage.data_models.conversation_metadata_result_set import (
    ConversationMetadataResultSet,
)
from openhands.storage.factory import FileStoreConfig, file_store_args, get_file_store
from openhands.storage.files import FileStore
from openhands.storage.local import LocalFileStore
from openhands.storage.locations import CONVERSATION_BASE_DIR, get_conversation_metadata_filename

logger = logging.getLogger(__name__)

_LEGACY_KEYS = ("github_user_id",)
_SETTLED_NS = 2_000_000_000


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


@dataclass(frozen=True)
class _IndexEntry:
    created: float  # created_at as a POSIX timestamp: aware datetimes sort slowly
    user_id: str | None


@dataclass
class FileConversationStore(ConversationStore):
    """Metadata always lives at ``sessions/<sid>/metadata.json``, whatever the user id."""

    file_store: FileStore
    _index: dict[str, _IndexEntry] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _index_lock: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False
    )
    _listing: tuple[object, list[str]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    # --- sync core (runs in a worker thread) --------------------------------------------

    def _read(self, conversation_id: str) -> ConversationMetadata:
        path = get_conversation_metadata_filename(conversation_id)
        metadata = parse_metadata(self.file_store.read(path), path)
        self._remember(metadata)
        return metadata

    def _remember(self, metadata: ConversationMetadata) -> None:
        entry = _IndexEntry(metadata.created_at.timestamp(), metadata.user_id)
        with self._index_lock:
            self._index[metadata.conversation_id] = entry

    def _forget(self, conversation_id: str) -> None:
        with self._index_lock:
            self._index.pop(conversation_id, None)

    def _listing_stamp(self) -> object | None:
        """What identifies the current listing of ``sessions/``; None: list again."""
        if not isinstance(self.file_store, LocalFileStore):
            return None
        try:
            stat = os.stat(self.file_store.get_full_path(CONVERSATION_BASE_DIR))
        except OSError:
            return None
        if time.time_ns() - stat.st_mtime_ns < _SETTLED_NS:
            return None
        return (stat.st_ino, stat.st_mtime_ns)

    def _conversation_ids(self) -> list[str]:
        stamp = self._listing_stamp()
        listing = self._listing
        if stamp is not None and listing is not None and listing[0] == stamp:
            return listing[1]
        ids = self._list_conversation_ids()
        self._listing = (stamp, ids) if stamp is not None else None
        return ids

    def _list_conversation_ids(self) -> list[str]:
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

    def _try_read(self, conversation_id: str) -> ConversationMetadata | None:
        try:
            return self._read(conversation_id)
        except FileNotFoundError:
            # A conversation directory without (complete) metadata, e.g. one whose
            # events were written before its metadata. Not an error.
            logger.debug("No metadata for conversation %s", conversation_id)
        except ValueError as error:  # bad JSON or bad fields (ValidationError too)
            logger.warning("Skipping unreadable metadata of %s: %s", conversation_id, error)
        self._forget(conversation_id)
        return None

    def _indexed(self) -> list[tuple[str, _IndexEntry]]:
        """(id, index entry) of every conversation with readable metadata."""
        ids = self._conversation_ids()
        present = set(ids)
        with self._index_lock:
            for gone in [sid for sid in self._index if sid not in present]:
                del self._index[gone]
            unknown = [sid for sid in ids if sid not in self._index]
        for conversation_id in unknown:
            self._try_read(conversation_id)
        with self._index_lock:
            return [(sid, self._index[sid]) for sid in ids if sid in self._index]

    def _search(
        self, page_id: str | None, limit: int, owner: str | None
    ) -> ConversationMetadataResultSet:
        if limit < 0:
            raise ValueError("limit must not be negative")
        start = page_id_to_offset(page_id)
        entries = self._indexed()
        if owner is not None:
            entries = [(sid, entry) for sid, entry in entries if entry.user_id == owner]
        entries.sort(key=lambda item: item[1].created, reverse=True)
        end = start + limit
        page = (self._try_read(sid) for sid, _ in entries[start:end])
        return ConversationMetadataResultSet(
            results=[metadata for metadata in page if metadata is not None],
            next_page_id=offset_to_page_id(end, end < len(entries)),
        )

    # --- ConversationStore ---------------------------------------------------------------

    async def save_metadata(self, metadata: ConversationMetadata) -> None:
        path = get_conversation_metadata_filename(metadata.conversation_id)
        await asyncio.to_thread(self.file_store.write, path, metadata.model_dump_json())
        self._remember(metadata)

    async def get_metadata(self, conversation_id: str) -> ConversationMetadata:
        return await asyncio.to_thread(self._read, conversation_id)

    async def delete_metadata(self, conversation_id: str) -> None:
        path = get_conversation_metadata_filename(conversation_id)
        await asyncio.to_thread(self.file_store.delete, path)
        self._forget(conversation_id)

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
        self, page_id: str | None = None, limit: int = 20, *, owner: str | None = None
    ) -> ConversationMetadataResultSet:
        """See the seam; ``owner`` (when not None) keeps only that user's conversations,
        before paging."""
        return await asyncio.to_thread(self._search, page_id, limit, owner)

    @classmethod
    async def get_instance(
        cls, config: FileStoreConfig, user_id: str | None
    ) -> FileConversationStore:
        return cls(get_file_store(**file_store_args(config)))
