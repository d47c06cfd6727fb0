"""``pipeline``: several condensers in a row; the first condensation wins."""

from __future__ import annotations

from typing import Any

from openhands.core.config.condenser_config import CondenserPipelineConfig
from openhands.memory.condenser.condenser import (
    Condensation,
    Condenser,
    CondenserState,
    llm_metadata_for,
)
from openhands.memory.view import View


@Condenser.register(CondenserPipelineConfig)
class CondenserPipeline(Condenser):
    def __init__(self, *condensers: Condenser) -> None:
        super().__init__()
        self.condensers = list(condensers)

    def condensed_history(self, state: CondenserState) -> View | Condensation:
        # Each member writes its own metadata batch to the state.
        view = state.view
        for condenser in self.condensers:
            condenser._llm_metadata = llm_metadata_for(state, condenser)
            with condenser.metadata_batch(state):
                result = condenser.condense(view)
            if isinstance(result, Condensation):
                return result
            view = result
        return view

    def condense(self, view: View) -> View | Condensation:
        for condenser in self.condensers:
            result = condenser.condense(view)
            if isinstance(result, Condensation):
                return result
            view = result
        return view

    @classmethod
    def build(cls, config: Any, llm_registry: Any) -> CondenserPipeline:
        return cls(*(Condenser.from_config(member, llm_registry) for member in config.condensers))
