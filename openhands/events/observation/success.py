from dataclasses import dataclass

from openhands.core.schema import ObservationType
from openhands.events.observation.observation import Observation


@dataclass
class SuccessObservation(Observation):
    observation = ObservationType.SUCCESS.value

    @property
    def message(self) -> str:
        return self.content
