"""Critics: score a finished run from its events (and, optionally, its git patch).

Evaluation harnesses use them to decide whether an instance is worth another attempt.
``base`` holds the interface and the result type, ``finish_critic`` the rule-based critic
that only checks that the agent ended with ``finish``.
"""

from openhands.critic.base import BaseCritic, CriticResult
from openhands.critic.finish_critic import AgentFinishedCritic

__all__ = ["AgentFinishedCritic", "BaseCritic", "CriticResult"]
