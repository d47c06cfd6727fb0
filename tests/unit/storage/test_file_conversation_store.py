"""FileConversationStore: persistence, search order, paging and resilience."""

from __future__ import annotations

import json
import logging
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest

from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.conversation.paging import (
    InvalidPageIdError,
    offset_to_page_id,
    page_id_to_offset,
)
from openhands.storage.data_models.conversation_metadata import ConversationMetadata
from openhands.storage.files import FileStore
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore

EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture(params=["local", "memory"])
def file_store(request: pytest.FixtureRequest, tmp_path: Path) -> FileStore:
    return LocalFileStore(str(tmp_path)) if request.param == "local" else InMemoryFileStore()


def _metadata(index: int, **fields: object) -> ConversationMetadata:
    return ConversationMetadata(
        conversation_id=f"conv{index:02d}",
        created_at=EPOCH + timedelta(minutes=index),
        title=f"Conversation {index}",
        **fields,  # type: ignore[arg-type]
    )


async def _store_with(file_store: FileStore, count: int) -> FileConversationStore:
    store = FileConversationStore(file_store)
    # Saved in a scrambled order, so the sort really has to happen.
    for index in sorted(range(count), key=lambda i: (i * 7) % count):
        await store.save_metadata(_metadata(index))
    return store


async def test_metadata_round_trip_at_the_sessions_path(file_store: FileStore) -> None:
    store = FileConversationStore(file_store)
    metadata = _metadata(1, user_id="u1", selected_repository="o/r", pr_number=[3])
    await store.save_metadata(metadata)
    # Always under sessions/, even when the metadata has a user id.
    on_disk = json.loads(file_store.read("sessions/conv01/metadata.json"))
    assert on_disk["user_id"] == "u1"
    assert on_disk["created_at"] == "2025-01-01T00:01:00Z"
    assert await store.get_metadata("conv01") == metadata
    assert await store.exists("conv01")


async def test_missing_metadata(file_store: FileStore) -> None:
    store = FileConversationStore(file_store)
    with pytest.raises(FileNotFoundError):
        await store.get_metadata("nope")
    assert not await store.exists("nope")
    await store.delete_metadata("nope")


async def test_file_without_created_at_counts_as_missing(file_store: FileStore) -> None:
    file_store.write("sessions/old/metadata.json", '{"conversation_id": "old"}')
    store = FileConversationStore(file_store)
    with pytest.raises(FileNotFoundError):
        await store.get_metadata("old")
    assert not await store.exists("old")
    assert (await store.search()).results == []


async def test_legacy_github_user_id_is_dropped(file_store: FileStore) -> None:
    file_store.write(
        "sessions/leg/metadata.json",
        json.dumps(
            {
                "conversation_id": "leg",
                "github_user_id": "12345",
                "selected_repository": None,
                "created_at": "2024-05-01T00:00:00Z",
            }
        ),
    )
    metadata = await FileConversationStore(file_store).get_metadata("leg")
    assert metadata.conversation_id == "leg"
    assert "github_user_id" not in metadata.model_dump_json()


async def test_delete_metadata(file_store: FileStore) -> None:
    store = await _store_with(file_store, 2)
    await store.delete_metadata("conv00")
    assert not await store.exists("conv00")
    assert await store.exists("conv01")


async def test_search_is_newest_first_and_pages(file_store: FileStore) -> None:
    store = await _store_with(file_store, 45)

    first = await store.search(limit=20)
    assert [m.conversation_id for m in first.results] == [f"conv{i:02d}" for i in range(44, 24, -1)]
    assert first.next_page_id == "MjA="  # base64 of "20"

    second = await store.search(first.next_page_id, limit=20)
    assert [m.conversation_id for m in second.results] == [f"conv{i:02d}" for i in range(24, 4, -1)]
    assert second.next_page_id == "NDA="

    last = await store.search(second.next_page_id, limit=20)
    assert [m.conversation_id for m in last.results] == [f"conv{i:02d}" for i in range(4, -1, -1)]
    assert last.next_page_id is None


async def test_search_default_limit_and_exact_fit(file_store: FileStore) -> None:
    store = await _store_with(file_store, 20)
    page = await store.search()
    assert len(page.results) == 20
    assert page.next_page_id is None


async def test_search_on_an_empty_store(file_store: FileStore) -> None:
    page = await FileConversationStore(file_store).search()
    assert page.results == []
    assert page.next_page_id is None


async def test_search_skips_corrupt_hidden_and_incomplete_entries(
    file_store: FileStore, caplog: pytest.LogCaptureFixture
) -> None:
    store = await _store_with(file_store, 3)
    file_store.write("sessions/broken/metadata.json", '{"conversation_id": "broken", "created_')
    file_store.write(
        "sessions/badtype/metadata.json",
        '{"conversation_id": "badtype", "created_at": "not a date"}',
    )
    file_store.write("sessions/.hidden/metadata.json", _metadata(99).model_dump_json())
    file_store.write("sessions/events-only/events/0.json", "{}")
    file_store.write("sessions/stray.txt", "not a conversation")

    with caplog.at_level(logging.WARNING):
        page = await store.search()

    assert [m.conversation_id for m in page.results] == ["conv02", "conv01", "conv00"]
    assert page.next_page_id is None
    warned = " ".join(record.getMessage() for record in caplog.records)
    assert "broken" in warned and "badtype" in warned
    assert "events-only" not in warned  # no metadata yet is normal, not a warning
    assert not await store.exists("broken")


async def test_search_rejects_a_malformed_page_id(file_store: FileStore) -> None:
    store = await _store_with(file_store, 2)
    for bad in ("%%%", "bm90LWEtbnVtYmVy", "LTU="):  # not base64, "not-a-number", "-5"
        with pytest.raises(InvalidPageIdError):
            await store.search(bad)
    with pytest.raises(ValueError):
        await store.search(None, limit=-1)


async def test_get_all_metadata_and_validate_metadata(file_store: FileStore) -> None:
    store = FileConversationStore(file_store)
    await store.save_metadata(_metadata(1))
    await store.save_metadata(_metadata(2, user_id="alice"))
    found = await store.get_all_metadata(["conv02", "conv01"])
    assert [m.conversation_id for m in found] == ["conv02", "conv01"]
    with pytest.raises(FileNotFoundError):
        await store.get_all_metadata(["conv01", "missing"])

    assert await store.validate_metadata("conv01", None)
    assert not await store.validate_metadata("conv01", "alice")
    assert await store.validate_metadata("conv02", "alice")
    assert not await store.validate_metadata("conv02", "bob")
    assert not await store.validate_metadata("missing", None)


async def test_get_instance_uses_the_configured_store(tmp_path: Path) -> None:
    config = SimpleNamespace(
        file_store="local",
        file_store_path=str(tmp_path),
        file_store_web_hook_url=None,
        file_store_web_hook_headers=None,
        file_store_web_hook_batch=False,
    )
    store = await FileConversationStore.get_instance(config, None)
    await store.save_metadata(_metadata(5))
    assert (tmp_path / "sessions" / "conv05" / "metadata.json").is_file()
    again = await FileConversationStore.get_instance(config, "someone")
    assert (await again.get_metadata("conv05")).conversation_id == "conv05"


def test_page_id_helpers() -> None:
    assert offset_to_page_id(20, True) == "MjA="
    assert offset_to_page_id(20, False) is None
    assert page_id_to_offset(None) == 0
    assert page_id_to_offset("") == 0
    assert page_id_to_offset("MjA=") == 20


# --- the listing index ------------------------------------------------------------------------


class _CountingStore(InMemoryFileStore):
    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []

    def read(self, path: str) -> str:
        self.reads.append(path)
        return super().read(path)


async def test_a_warm_listing_reads_only_the_records_of_its_page() -> None:
    file_store = _CountingStore()
    store = await _store_with(file_store, 40)
    first = await FileConversationStore(file_store).search(limit=5)  # a cold store: reads all
    assert len(first.results) == 5
    file_store.reads.clear()
    page = await store.search(limit=5)
    assert [m.conversation_id for m in page.results] == [f"conv{i:02d}" for i in range(39, 34, -1)]
    assert sorted(file_store.reads) == sorted(
        f"sessions/conv{i:02d}/metadata.json" for i in range(35, 40)
    )


async def test_the_listing_follows_changes_made_behind_its_back(file_store: FileStore) -> None:
    store = await _store_with(file_store, 3)
    assert len((await store.search()).results) == 3
    other = FileConversationStore(file_store)  # e.g. another process
    await other.save_metadata(_metadata(1).model_copy(update={"title": "renamed elsewhere"}))
    await other.save_metadata(_metadata(7))
    file_store.delete("sessions/conv00/")
    page = await store.search()
    assert [m.conversation_id for m in page.results] == ["conv07", "conv02", "conv01"]
    assert page.results[2].title == "renamed elsewhere"


class _CountingLocalStore(LocalFileStore):
    lists = 0

    def list(self, path: str) -> list[str]:
        self.lists += 1
        return super().list(path)


async def test_a_settled_directory_listing_is_reused_until_it_changes(tmp_path: Path) -> None:
    file_store = _CountingLocalStore(str(tmp_path))
    store = await _store_with(file_store, 3)
    sessions = tmp_path / "sessions"
    long_ago = time.time() - 60
    os.utime(sessions, (long_ago, long_ago))
    assert len((await store.search()).results) == 3
    listed = file_store.lists
    assert len((await store.search()).results) == 3
    assert file_store.lists == listed  # nothing changed: the listing was reused
    # A conversation created now changes the directory's time: the listing is redone.
    await FileConversationStore(file_store).save_metadata(_metadata(9))
    assert (await store.search()).results[0].conversation_id == "conv09"
    # Removed behind the store's back, also seen.
    file_store.delete("sessions/conv09/")
    assert "conv09" not in [m.conversation_id for m in (await store.search()).results]


async def test_owner_filter_pages_within_the_owners_conversations(file_store: FileStore) -> None:
    store = FileConversationStore(file_store)
    for index in range(10):
        await store.save_metadata(_metadata(index, user_id="alice" if index % 2 else "bob"))
    first = await store.search(limit=3, owner="alice")
    assert [m.conversation_id for m in first.results] == ["conv09", "conv07", "conv05"]
    rest = await store.search(first.next_page_id, limit=3, owner="alice")
    assert [m.conversation_id for m in rest.results] == ["conv03", "conv01"]
    assert rest.next_page_id is None
    assert len((await store.search(limit=100)).results) == 10
