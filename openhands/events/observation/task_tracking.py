from dataclasses import dataclass, field
from typing import Any

from openhands.core.schema import ObservationType
from openhands.events.observation.observation import Observation


@dataclass
class TaskTrackingObservation(Observation):
    command: str = ""
    task_list: list[dict[str, Any]] = field(default_factory=list)

    observation = ObservationType.TASK_TRACKING.value

    @property
    def message(self) -> str:
        return self.content
