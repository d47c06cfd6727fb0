"""LocAgent: finds where in a repository an issue has to be fixed."""

from openhands.agenthub.loc_agent.loc_agent import LocAgent

__all__ = ["LocAgent"]
