"""Send image-bearing or over-long requests to the primary model, the rest to a cheaper one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openhands.core.config import AgentConfig
from openhands.core.message import Message
from openhands.llm.llm import MessageLike
from openhands.llm.retry_mixin import RetryListener
from openhands.llm.router.base import PRIMARY, RouterLLM

SECONDARY = "secondary_model"


def _contains_image(message: MessageLike) -> bool:
    if isinstance(message, Message):
        return message.contains_image
    content: Any = message.get("content")
    return isinstance(content, list) and any(
        isinstance(item, dict) and item.get("type") == "image_url" for item in content
    )


class MultimodalRouter(RouterLLM):
    ROUTER_NAME = "multimodal_router"

    def __init__(
        self,
        agent_config: AgentConfig,
        llm_registry: Any,
        service_id: str = "router_llm",
        retry_listener: RetryListener | None = None,
    ) -> None:
        super().__init__(agent_config, llm_registry, service_id, retry_listener)
        if SECONDARY not in self.llms_for_routing:
            raise ValueError(
                "multimodal_router needs an [llm.secondary_model] section with for_routing = true"
            )
        # Once the secondary model has been too small for the history, it stays out.
        self.max_token_exceeded = False

    def _select_llm(self, messages: Sequence[MessageLike]) -> str:
        if any(_contains_image(m) for m in messages):
            return PRIMARY
        if not self.max_token_exceeded:
            secondary = self.llms_for_routing[SECONDARY]
            limit = secondary.config.max_input_tokens
            if limit is not None and secondary.get_token_count(list(messages)) > limit:
                self.max_token_exceeded = True
        return PRIMARY if self.max_token_exceeded else SECONDARY
