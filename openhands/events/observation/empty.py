from dataclasses import dataclass

from openhands.core.schema import ObservationType
from openhands.events.observation.observation import Observation


@dataclass
class NullObservation(Observation):
    """Placeholder when an action produced nothing worth showing."""

    observation = ObservationType.NULL.value

    @property
    def message(self) -> str:
        return "No observation"
