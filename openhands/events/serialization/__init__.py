from openhands.events.serialization.action import action_from_dict
from openhands.events.serialization.event import (
    event_from_dict,
    event_to_dict,
    event_to_trajectory,
)
from openhands.events.serialization.observation import observation_from_dict

__all__ = [
    "action_from_dict",
    "event_from_dict",
    "event_to_dict",
    "event_to_trajectory",
    "observation_from_dict",
]
