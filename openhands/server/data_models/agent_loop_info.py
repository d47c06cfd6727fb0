"""Compatibility path: ``AgentLoopInfo`` of ``conversation_manager/conversation_manager.py``."""

from openhands.server.conversation_manager.conversation_manager import AgentLoopInfo

__all__ = ["AgentLoopInfo"]
