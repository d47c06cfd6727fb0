"""The SecurityAnalyzer seam: how risky is an action the agent wants to run?

In confirmation mode the controller asks the configured analyzer for every gated action
and only stops for the user when the risk calls for it (see ``controller.policies``).
An analyzer must never raise for a risk query it cannot answer: it returns UNKNOWN.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from openhands.events.action import Action, ActionSecurityRisk


class SecurityAnalyzer(ABC):
    @abstractmethod
    async def security_risk(self, action: Action) -> ActionSecurityRisk:
        """The risk of running ``action``; UNKNOWN when it cannot be judged."""

    async def handle_api_request(self, request: Any) -> Any:
        """Serve ``/api/conversations/{id}/security/*``. Analyzers without an API refuse."""
        raise NotImplementedError(f"{type(self).__name__} does not serve API requests")

    async def close(self) -> None:
        """Release what the analyzer holds (connections, containers). Nothing by default."""
        return None
