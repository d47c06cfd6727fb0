"""``recent``: the first few events and the most recent ones."""

from __future__ import annotations

from typing import Any

from openhands.core.config.condenser_config import RecentEventsCondenserConfig
from openhands.memory.condenser.condenser import Condensation, Condenser
from openhands.memory.view import View


@Condenser.register(RecentEventsCondenserConfig)
class RecentEventsCondenser(Condenser):
    """Keeps ``view[:keep_first]`` and the last ``max_events - keep_first`` events.

    Like the reference, this is plain slicing: a view shorter than the tail repeats the
    head events, and a tail length of 0 keeps the whole view after the head.
    """

    def __init__(self, keep_first: int = 1, max_events: int = 100) -> None:
        super().__init__()
        self.keep_first = keep_first
        self.max_events = max_events

    def condense(self, view: View) -> View | Condensation:
        head = view[: self.keep_first]
        tail_length = max(0, self.max_events - len(head))
        tail = view[-tail_length:]
        return View(events=head + tail)

    @classmethod
    def build(cls, config: Any, llm_registry: Any) -> RecentEventsCondenser:
        return cls(keep_first=config.keep_first, max_events=config.max_events)
