"""``amortized``: once the view is too big, forget everything but the head and recent half."""

from __future__ import annotations

from typing import Any

from openhands.core.config.condenser_config import AmortizedForgettingCondenserConfig
from openhands.memory.condenser.condenser import Condensation, Condenser, RollingCondenser
from openhands.memory.condenser.impl._window import check_window, forget_range
from openhands.memory.view import View


@Condenser.register(AmortizedForgettingCondenserConfig)
class AmortizedForgettingCondenser(RollingCondenser):
    def __init__(self, max_size: int = 100, keep_first: int = 1) -> None:
        super().__init__()
        check_window(keep_first, max_size)
        self.max_size = max_size
        self.keep_first = keep_first

    def should_condense(self, view: View) -> bool:
        return len(view) > self.max_size or view.unhandled_condensation_request

    def get_condensation(self, view: View) -> Condensation:
        head = view[: self.keep_first]
        tail_length = self.max_size // 2 - len(head)
        tail = view[len(view) - tail_length :] if tail_length > 0 else []
        keep = {event.id for event in head + tail}
        forgotten = [event.id for event in view if event.id not in keep]
        if not forgotten:
            # A request on a short view: drop the older half of what follows the head.
            rest = view[self.keep_first :]
            forgotten = [event.id for event in rest[: max(1, len(rest) // 2)]]
        return Condensation(action=forget_range(forgotten))

    @classmethod
    def build(cls, config: Any, llm_registry: Any) -> AmortizedForgettingCondenser:
        return cls(max_size=config.max_size, keep_first=config.keep_first)
