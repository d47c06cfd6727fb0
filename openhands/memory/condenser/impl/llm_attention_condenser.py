"""``llm_attention``: ask an LLM which events matter most, keep those, forget the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from openhands.core.config.condenser_config import LLMAttentionCondenserConfig
from openhands.events.action.agent import CondensationAction
from openhands.memory.condenser.condenser import Condensation, Condenser, RollingCondenser
from openhands.memory.condenser.impl._llm import condenser_llm
from openhands.memory.condenser.impl._window import check_window
from openhands.memory.view import View

if TYPE_CHECKING:
    from openhands.llm.llm import LLM

RANKING_INSTRUCTIONS = (
    "Below are the events of a coding agent's history, each tagged with its id. Rank the "
    "ids from the event most useful for the agent's next step to the least useful, and "
    "answer with the ranked ids only."
)


class ImportantEventSelection(BaseModel):
    ids: list[int]


def supports_response_schema(llm: LLM) -> bool:
    import litellm

    try:
        return bool(
            litellm.supports_response_schema(
                model=llm.config.model, custom_llm_provider=llm.config.custom_llm_provider
            )
        )
    except Exception:
        return False


@Condenser.register(LLMAttentionCondenserConfig)
class LLMAttentionCondenser(RollingCondenser):
    def __init__(self, llm: LLM, max_size: int = 100, keep_first: int = 1) -> None:
        super().__init__()
        check_window(keep_first, max_size)
        if not supports_response_schema(llm):
            raise ValueError("The LLM attention condenser needs a model with response_schema")
        self.llm = llm
        self.max_size = max_size
        self.keep_first = keep_first

    def should_condense(self, view: View) -> bool:
        return len(view) > self.max_size or view.unhandled_condensation_request

    def get_condensation(self, view: View) -> Condensation:
        head_ids = [event.id for event in view[: self.keep_first]]
        budget = self.max_size // 2 - len(head_ids)
        ranked = self._rank(view)
        self.add_metadata("metrics", self.llm.metrics.get())
        keep = select_kept_ids(view, head_ids, ranked, budget)
        forgotten = sorted(event.id for event in view if event.id not in keep and event.id >= 0)
        return Condensation(action=CondensationAction(forgotten_event_ids=forgotten))

    def _rank(self, view: View) -> list[int]:
        messages: list[dict[str, Any]] = [{"role": "user", "content": RANKING_INSTRUCTIONS}]
        messages += [
            {"role": "user", "content": f"<ID>{event.id}</ID>\n<CONTENT>{event.message}</CONTENT>"}
            for event in view
        ]
        response = self.llm.completion(
            messages=messages,
            response_format={
                "type": "json_schema",
                "json_schema": {
                    "name": "ImportantEventSelection",
                    "schema": ImportantEventSelection.model_json_schema(),
                },
            },
            extra_body={"metadata": self.llm_metadata},
        )
        content = response.choices[0].message.content or "{}"  # type: ignore[union-attr]
        self.add_metadata("response", response.model_dump())
        return ImportantEventSelection.model_validate_json(content).ids

    @classmethod
    def build(cls, config: Any, llm_registry: Any) -> LLMAttentionCondenser:
        return cls(
            llm=condenser_llm(config, llm_registry),
            max_size=config.max_size,
            keep_first=config.keep_first,
        )


def select_kept_ids(view: View, head_ids: list[int], ranked: list[int], budget: int) -> set[int]:
    """The head, then the best-ranked other events, topped up with the most recent ones."""
    present = {event.id for event in view}
    chosen: list[int] = []
    for event_id in ranked:
        if len(chosen) >= budget:
            break
        if event_id in present and event_id not in head_ids and event_id not in chosen:
            chosen.append(event_id)
    for event in reversed(view.events):
        if len(chosen) >= budget:
            break
        if event.id not in head_ids and event.id not in chosen:
            chosen.append(event.id)
    return set(head_ids) | set(chosen)
