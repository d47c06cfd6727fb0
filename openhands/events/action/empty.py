from dataclasses import dataclass

from openhands.core.schema import ActionType
from openhands.events.action.action import Action


@dataclass
class NullAction(Action):
    """An action that does nothing (e.g. a placeholder when the agent has nothing to do)."""

    action = ActionType.NULL.value

    @property
    def message(self) -> str:
        return "No action"
