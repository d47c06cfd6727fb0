"""Trust the agent's own judgement: the LLM sets ``security_risk`` in each tool call."""

from __future__ import annotations

from typing import Any

from openhands.events.action import Action, ActionSecurityRisk
from openhands.security.analyzer import SecurityAnalyzer


class LLMRiskAnalyzer(SecurityAnalyzer):
    async def security_risk(self, action: Action) -> ActionSecurityRisk:
        return risk_from_llm(getattr(action, "security_risk", None))

    async def handle_api_request(self, request: Any) -> Any:
        """It has nothing to configure: every request learns which analyzer is active."""
        return {"status": "ok", "analyzer": "llm"}


def risk_from_llm(value: object) -> ActionSecurityRisk:
    """Read whatever the LLM produced (enum, int or name); anything else is UNKNOWN."""
    if isinstance(value, ActionSecurityRisk):
        return value
    if isinstance(value, bool):
        return ActionSecurityRisk.UNKNOWN
    if isinstance(value, int):
        try:
            return ActionSecurityRisk(value)
        except ValueError:
            return ActionSecurityRisk.UNKNOWN
    if isinstance(value, str):
        return ActionSecurityRisk.__members__.get(value.strip().upper(), ActionSecurityRisk.UNKNOWN)
    return ActionSecurityRisk.UNKNOWN
