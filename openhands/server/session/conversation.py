"""Compatibility path: ``ServerConversation`` of ``session/server_conversation.py``."""

from openhands.server.session.server_conversation import ServerConversation

__all__ = ["ServerConversation"]
