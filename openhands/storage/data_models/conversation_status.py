"""The lifecycle status of a conversation, as reported by the server."""

from __future__ import annotations

from enum import StrEnum


class ConversationStatus(StrEnum):
    STARTING = "STARTING"
    RUNNING = "RUNNING"
    STOPPED = "STOPPED"
    ARCHIVED = "ARCHIVED"
    ERROR = "ERROR"
