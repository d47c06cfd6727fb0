from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import ClassVar

from openhands.events.event import Event


class ActionConfirmationStatus(str, Enum):
    CONFIRMED = "confirmed"
    REJECTED = "rejected"
    AWAITING_CONFIRMATION = "awaiting_confirmation"


class ActionSecurityRisk(IntEnum):
    UNKNOWN = -1
    LOW = 0
    MEDIUM = 1
    HIGH = 2


@dataclass
class Action(Event):
    """Something an agent or user asks for. ``action`` is the wire type string."""

    action: ClassVar[str] = ""
    runnable: ClassVar[bool] = False
