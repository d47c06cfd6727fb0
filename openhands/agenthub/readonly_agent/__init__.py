"""ReadOnlyAgent: explores and explains a code base without changing it."""

from openhands.agenthub.readonly_agent.readonly_agent import ReadOnlyAgent

__all__ = ["ReadOnlyAgent"]
