from dataclasses import dataclass
from typing import ClassVar

from openhands.events.event import Event


@dataclass
class Observation(Event):
    """What came back from running an action (or a change in the environment)."""

    content: str

    observation: ClassVar[str] = ""
