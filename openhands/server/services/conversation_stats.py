"""Compatibility path: ``ConversationStats`` lives in ``openhands.llm.conversation_stats``."""

from openhands.llm.conversation_stats import ConversationStats

__all__ = ["ConversationStats"]
