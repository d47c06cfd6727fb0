"""RouterLLM: an LLM that forwards each completion to one of several registered LLMs."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from litellm.types.utils import ModelResponse

from openhands.core.config import AgentConfig
from openhands.llm.llm import LLM, MessageLike
from openhands.llm.retry_mixin import RetryListener

if TYPE_CHECKING:
    from openhands.llm.llm_registry import LLMRegistry

PRIMARY = "primary"
ROUTING_SERVICE_PREFIX = "llm_for_routing."


class RouterLLM(LLM):
    """Answers capability questions as the primary (``agent``) LLM and routes every call.

    Calls run on the chosen LLM, so their metrics land on that LLM's own service.
    """

    ROUTER_NAME = ""

    def __init__(
        self,
        agent_config: AgentConfig,
        llm_registry: LLMRegistry,
        service_id: str = "router_llm",
        retry_listener: RetryListener | None = None,
    ) -> None:
        primary = llm_registry.get_llm_from_agent_config("agent", agent_config)
        super().__init__(
            config=primary.original_config, service_id=service_id, retry_listener=retry_listener
        )
        self.primary_llm = primary
        self.llms_for_routing: dict[str, LLM] = {
            name: llm_registry.get_llm(ROUTING_SERVICE_PREFIX + name, cfg)
            for name, cfg in agent_config.model_routing.llms_for_routing.items()
        }
        self.available_llms: dict[str, LLM] = {PRIMARY: primary, **self.llms_for_routing}
        self.active_llm: LLM = primary

    @abstractmethod
    def _select_llm(self, messages: Sequence[MessageLike]) -> str:
        """The key in ``available_llms`` that should answer these messages."""

    @property
    def completion(self) -> Callable[..., ModelResponse]:
        """Routes each call: the chosen LLM answers, with its own retries and metrics."""
        return self._route_completion

    def _route_completion(self, *args: Any, **kwargs: Any) -> ModelResponse:
        messages = args[0] if args else kwargs.get("messages", [])
        self.active_llm = self.available_llms[self._select_llm(messages)]
        return self.active_llm.completion(*args, **kwargs)

    def __str__(self) -> str:
        return f"{type(self).__name__}(llms={sorted(self.available_llms)})"

    __repr__ = __str__
