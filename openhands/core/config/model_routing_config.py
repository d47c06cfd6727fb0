"""Model routing: which router picks the LLM for each call (`[model_routing]`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from openhands.core.config.llm_config import LLMConfig


class ModelRoutingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    router_name: str = Field(
        default="noop_router", description="`noop_router` or `multimodal_router`."
    )
    llms_for_routing: dict[str, LLMConfig] = Field(
        default_factory=dict,
        description="Filled from every [llm.X] section that has for_routing = true.",
    )
