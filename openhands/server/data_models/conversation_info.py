"""Compatibility path: ``ConversationInfo`` of ``openhands/server/models/conversation.py``
(a pydantic model with the reference dataclass's fields)."""

from openhands.server.models.conversation import ConversationInfo

__all__ = ["ConversationInfo"]
