"""``noop``: the view as it is."""

from __future__ import annotations

from openhands.core.config.condenser_config import NoOpCondenserConfig
from openhands.memory.condenser.condenser import Condensation, Condenser
from openhands.memory.view import View


@Condenser.register(NoOpCondenserConfig)
class NoOpCondenser(Condenser):
    def condense(self, view: View) -> View | Condensation:
        return view
