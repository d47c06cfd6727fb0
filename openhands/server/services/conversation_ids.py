"""Path-id checks of the per-conversation routes (server-api §6.3 "id checked"). Pure."""

from __future__ import annotations

from openhands.server.errors import InvalidConversationIdError

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
