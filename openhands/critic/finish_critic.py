"""A rule-based critic: the run succeeded when the agent's last action was ``finish``."""

from __future__ import annotations

from openhands.critic.base import BaseCritic, CriticResult
from openhands.events.action import Action, AgentFinishAction
from openhands.events.event import Event


class AgentFinishedCritic(BaseCritic):
    """Score 1 when the last action in the events is an ``AgentFinishAction``, else 0.

    A git patch that was given but holds nothing but whitespace scores 0 whatever the
    events say: the agent changed nothing.
    """

    def evaluate(self, events: list[Event], git_patch: str | None = None) -> CriticResult:
        if git_patch is not None and not git_patch.strip():
            return CriticResult(score=0, message="Git patch is empty.")
        last_action = next((e for e in reversed(events) if isinstance(e, Action)), None)
        if isinstance(last_action, AgentFinishAction):
            return CriticResult(score=1, message="Agent finished.")
        return CriticResult(score=0, message="Agent did not finish.")
