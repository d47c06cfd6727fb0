from dataclasses import dataclass, field
from typing import Any

from openhands.core.schema import ObservationType
from openhands.events.observation.observation import Observation


@dataclass
class MCPObservation(Observation):
    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)

    observation = ObservationType.MCP.value

    @property
    def message(self) -> str:
        return self.content
