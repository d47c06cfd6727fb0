"""Compatibility path: ``AgentDelegateObservation`` lives in ``openhands.events.observation.agent``."""

from openhands.events.observation.agent import AgentDelegateObservation

__all__ = ["AgentDelegateObservation"]
