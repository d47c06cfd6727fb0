from dataclasses import dataclass

from openhands.core.schema import ObservationType
from openhands.events.observation.observation import Observation


@dataclass
class ErrorObservation(Observation):
    """Something went wrong; ``content`` explains it to the agent, ``error_id`` to the UI."""

    error_id: str = ""

    observation = ObservationType.ERROR.value

    @property
    def message(self) -> str:
        return self.content

    def __str__(self) -> str:
        return f"**ErrorObservation**\n{self.content}"
