"""The conversation file layout."""

from __future__ import annotations

from pathlib import Path

from openhands.storage import locations
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore


def test_conversation_dir_without_and_with_user() -> None:
    assert locations.get_conversation_dir("abc") == "sessions/abc/"
    assert locations.get_conversation_dir("abc", None) == "sessions/abc/"
    assert locations.get_conversation_dir("abc", "u1") == "users/u1/conversations/abc/"


def test_event_files_and_cache_pages() -> None:
    assert locations.get_conversation_events_dir("abc") == "sessions/abc/events/"
    assert locations.get_conversation_event_filename("abc", 0) == "sessions/abc/events/0.json"
    assert (
        locations.get_conversation_event_filename("abc", 1234, "u1")
        == "users/u1/conversations/abc/events/1234.json"
    )
    assert locations.get_conversation_event_cache_dir("abc") == "sessions/abc/event_cache/"
    assert (
        locations.get_conversation_event_cache_filename("abc", 25, 50)
        == "sessions/abc/event_cache/25-50.json"
    )
    assert locations.EVENT_CACHE_PAGE_SIZE == 25


def test_other_conversation_files() -> None:
    expected = {
        locations.get_conversation_metadata_filename: "metadata.json",
        locations.get_conversation_init_data_filename: "init.json",
        locations.get_conversation_agent_state_filename: "agent_state.pkl",
        locations.get_conversation_llm_registry_filename: "llm_registry.json",
        locations.get_conversation_stats_filename: "conversation_stats.pkl",
        locations.get_experiment_config_filename: "exp_config.json",
    }
    for helper, name in expected.items():
        assert helper("abc") == f"sessions/abc/{name}"
        assert helper("abc", "u1") == f"users/u1/conversations/abc/{name}"


def test_session_exists_on_local_store(tmp_path: Path) -> None:
    store = LocalFileStore(str(tmp_path))
    assert not locations.session_exists("abc", store)
    store.write("sessions/abc/events/0.json", "{}")
    assert locations.session_exists("abc", store)
    assert not locations.session_exists("abc", store, "u1")


def test_session_exists_is_always_true_on_memory_store() -> None:
    # Quirk kept from the reference: a missing path lists as [] there.
    assert locations.session_exists("never-created", InMemoryFileStore())
