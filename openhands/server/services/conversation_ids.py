"""Conversation ids: the path-id checks of the per-conversation routes (server-api §6.3
"id checked", pure) and new ids."""

from __future__ import annotations

import uuid

from openhands.server.errors import InvalidConversationIdError
from openhands.storage.conversation.conversation_store import ConversationStore

MAX_ID_LENGTH = 100


def check_conversation_id(conversation_id: str) -> str:
    if len(conversation_id) > MAX_ID_LENGTH:
        raise InvalidConversationIdError("Conversation ID is too long")
    if "\x00" in conversation_id:
        raise InvalidConversationIdError("Conversation ID contains invalid characters")
    if ".." in conversation_id or "/" in conversation_id or "\\" in conversation_id:
        raise InvalidConversationIdError("Conversation ID contains invalid path characters")
    if any(ord(char) < 32 or ord(char) == 127 for char in conversation_id):
        raise InvalidConversationIdError("Conversation ID contains control characters")
    return conversation_id


async def generate_unique_conversation_id(store: ConversationStore) -> str:
    """A fresh id (32 lowercase hex chars) that ``store`` holds no conversation under."""
    while True:
        conversation_id = uuid.uuid4().hex
        if not await store.exists(conversation_id):
            return conversation_id
