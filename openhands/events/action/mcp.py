from dataclasses import dataclass, field
from typing import Any

from openhands.core.schema import ActionType
from openhands.events.action.action import Action, ActionSecurityRisk


@dataclass
class MCPAction(Action):
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    thought: str = ""
    security_risk: ActionSecurityRisk = ActionSecurityRisk.UNKNOWN

    action = ActionType.MCP.value
    runnable = True

    @property
    def message(self) -> str:
        return (
            "I am interacting with the MCP server with name:\n"
            f"```\n{self.name}\n```\n"
            "and arguments:\n"
            f"```\n{self.arguments}\n```"
        )

    def __str__(self) -> str:
        lines = ["**MCPAction**"]
        if self.thought:
            lines.append(f"THOUGHT: {self.thought}")
        lines.append(f"NAME: {self.name}")
        lines.append(f"ARGUMENTS: {self.arguments}")
        return "\n".join(lines)
