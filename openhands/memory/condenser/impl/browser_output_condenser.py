"""``browser_output_masking``: keep only the most recent browser pages in full."""

from __future__ import annotations

from typing import Any

from openhands.core.config.condenser_config import BrowserOutputCondenserConfig
from openhands.events.event import Event
from openhands.events.observation.agent import AgentCondensationObservation
from openhands.events.observation.browse import BrowserOutputObservation
from openhands.memory.condenser.condenser import Condensation, Condenser
from openhands.memory.view import View


@Condenser.register(BrowserOutputCondenserConfig)
class BrowserOutputCondenser(Condenser):
    def __init__(self, attention_window: int = 1) -> None:
        super().__init__()
        self.attention_window = attention_window

    def condense(self, view: View) -> View | Condensation:
        kept_pages = 0
        events: list[Event] = []
        for event in reversed(view.events):
            if isinstance(event, BrowserOutputObservation):
                if kept_pages >= self.attention_window:
                    event = AgentCondensationObservation(
                        f"Visited URL {event.url}\nContent omitted"
                    )
                else:
                    kept_pages += 1
            events.append(event)
        events.reverse()
        return View(events=events)

    @classmethod
    def build(cls, config: Any, llm_registry: Any) -> BrowserOutputCondenser:
        return cls(attention_window=config.attention_window)
