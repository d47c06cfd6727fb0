"""Compatibility path: ``ConversationInfoResultSet`` of ``openhands/server/models/conversation.py``."""

from openhands.server.models.conversation import ConversationInfoResultSet

__all__ = ["ConversationInfoResultSet"]
