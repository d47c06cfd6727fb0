"""Where a conversation's files live inside a FileStore.

Without a user id a conversation lives under ``sessions/{sid}/``; with one, under
``users/{user_id}/conversations/{sid}/``. Every helper returns a store path; directory
paths end with ``/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openhands.storage.files import FileStore

CONVERSATION_BASE_DIR = "sessions"
EVENT_CACHE_PAGE_SIZE = 25


def get_conversation_dir(sid: str, user_id: str | None = None) -> str:
    if user_id:
        return f"users/{user_id}/conversations/{sid}/"
    return f"{CONVERSATION_BASE_DIR}/{sid}/"


def get_conversation_events_dir(sid: str, user_id: str | None = None) -> str:
    return f"{get_conversation_dir(sid, user_id)}events/"


def get_conversation_event_filename(sid: str, id: int, user_id: str | None = None) -> str:
    """``{conv}events/{id}.json`` with the id in plain decimal (no padding)."""
    return f"{get_conversation_dir(sid, user_id)}events/{id}.json"


def get_conversation_event_cache_dir(sid: str, user_id: str | None = None) -> str:
    return f"{get_conversation_dir(sid, user_id)}event_cache/"


def get_conversation_event_cache_filename(
    sid: str, start: int, end: int, user_id: str | None = None
) -> str:
    """A cache page holding events ``start`` (inclusive) to ``end`` (exclusive).

    Readers only look up aligned pages: ``start`` a multiple of 25, ``end = start + 25``.
    """
    return f"{get_conversation_dir(sid, user_id)}event_cache/{start}-{end}.json"


def get_conversation_metadata_filename(sid: str, user_id: str | None = None) -> str:
    return f"{get_conversation_dir(sid, user_id)}metadata.json"


def get_conversation_init_data_filename(sid: str, user_id: str | None = None) -> str:
    return f"{get_conversation_dir(sid, user_id)}init.json"


def get_conversation_agent_state_filename(sid: str, user_id: str | None = None) -> str:
    return f"{get_conversation_dir(sid, user_id)}agent_state.pkl"


def get_conversation_llm_registry_filename(sid: str, user_id: str | None = None) -> str:
    return f"{get_conversation_dir(sid, user_id)}llm_registry.json"


def get_conversation_stats_filename(sid: str, user_id: str | None = None) -> str:
    return f"{get_conversation_dir(sid, user_id)}conversation_stats.pkl"


def get_experiment_config_filename(sid: str, user_id: str | None = None) -> str:
    return f"{get_conversation_dir(sid, user_id)}exp_config.json"


def session_exists(sid: str, file_store: FileStore, user_id: str | None = None) -> bool:
    """True unless listing the conversation directory raises ``FileNotFoundError``.

    Stores that list a missing path as ``[]`` (memory, S3, GCS) therefore always say yes.
    """
    try:
        file_store.list(get_conversation_dir(sid, user_id))
    except FileNotFoundError:
        return False
    return True
