from dataclasses import dataclass

from openhands.core.schema import ObservationType
from openhands.events.observation.observation import Observation


@dataclass
class UserRejectObservation(Observation):
    """The user rejected the action that was awaiting confirmation."""

    observation = ObservationType.USER_REJECTED.value

    @property
    def message(self) -> str:
        return self.content
