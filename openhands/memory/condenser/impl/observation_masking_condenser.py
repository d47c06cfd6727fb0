"""``observation_masking``: hide the content of observations outside a recent window."""

from __future__ import annotations

from typing import Any

from openhands.core.config.condenser_config import ObservationMaskingCondenserConfig
from openhands.events.event import Event
from openhands.events.observation.agent import AgentCondensationObservation
from openhands.events.observation.observation import Observation
from openhands.memory.condenser.condenser import Condensation, Condenser
from openhands.memory.view import View

MASK = "<MASKED>"


@Condenser.register(ObservationMaskingCondenserConfig)
class ObservationMaskingCondenser(Condenser):
    def __init__(self, attention_window: int = 100) -> None:
        super().__init__()
        self.attention_window = attention_window

    def condense(self, view: View) -> View | Condensation:
        cutoff = len(view) - self.attention_window
        events: list[Event] = [
            AgentCondensationObservation(MASK)
            if isinstance(event, Observation) and index < cutoff
            else event
            for index, event in enumerate(view)
        ]
        return View(events=events)

    @classmethod
    def build(cls, config: Any, llm_registry: Any) -> ObservationMaskingCondenser:
        return cls(attention_window=config.attention_window)
