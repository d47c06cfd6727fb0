"""One LLM instance per service id (``agent``, ``condenser``, ...) for a conversation."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import uuid4

from openhands.core.config import AgentConfig, LLMConfig, OpenHandsConfig
from openhands.core.message import Message
from openhands.llm.llm import LLM
from openhands.llm.retry_mixin import RetryListener

if TYPE_CHECKING:
    from openhands.llm.router.base import RouterLLM

AGENT_SERVICE_ID = "agent"
ROUTER_SERVICE_ID = "router_llm"
NOOP_ROUTER = "noop_router"


@dataclass(frozen=True)
class RegistryEvent:
    llm: LLM
    service_id: str


RegistrySubscriber = Callable[[RegistryEvent], None]


class LLMRegistry:
    """Creates LLMs on first request and hands out the same instance afterwards.

    The ``agent`` service is created at once from the LLM config of ``agent_cls`` (default:
    ``config.default_agent``). A subscriber (ConversationStats) hears of every LLM created.
    """

    def __init__(
        self,
        config: OpenHandsConfig,
        agent_cls: str | None = None,
        retry_listener: RetryListener | None = None,
    ) -> None:
        self.registry_id = uuid4().hex
        self.config = copy.deepcopy(config)
        self.retry_listener = retry_listener
        self.service_to_llm: dict[str, LLM] = {}
        self.subscriber: RegistrySubscriber | None = None
        agent_name = agent_cls or self.config.default_agent
        self.active_agent_llm = self.get_llm(
            AGENT_SERVICE_ID, self.config.get_llm_config_from_agent(agent_name)
        )

    # --- creation ----------------------------------------------------------------------

    def _create_new_llm(
        self, service_id: str, config: LLMConfig, with_listener: bool = True
    ) -> LLM:
        """Build, register and announce a new LLM.

        ``with_listener=False`` leaves out the retry listener: one-off side calls should not
        report their retries as if the agent were waiting on them.
        """
        listener = self.retry_listener if with_listener else None
        llm = LLM(config=config, service_id=service_id, retry_listener=listener)
        self.service_to_llm[service_id] = llm
        self.notify(RegistryEvent(llm=llm, service_id=service_id))
        return llm

    def get_llm(self, service_id: str, config: LLMConfig | None = None) -> LLM:
        """The service's LLM. A known id with another config, or a new id without one, is an error."""
        existing = self.service_to_llm.get(service_id)
        if existing is not None:
            if config is not None and not _same_config(existing, config):
                raise ValueError(
                    f"Requesting same service ID {service_id} with different config, "
                    "use a new service ID"
                )
            return existing
        if config is None:
            raise ValueError(
                f"Requesting new LLM without specifying LLM config (service ID {service_id})"
            )
        return self._create_new_llm(config=config, service_id=service_id)

    def get_llm_from_agent_config(self, service_id: str, agent_config: AgentConfig) -> LLM:
        """The service's LLM, created from the agent's LLM config if new.

        An existing service is returned even if the agent's config differs (delegates share
        the parent's ``agent`` LLM this way).
        """
        existing = self.service_to_llm.get(service_id)
        if existing is not None:
            return existing
        name = agent_config.llm_config
        llm_config = self.config.get_llm_config(name) if name else self.config.get_llm_config()
        return self._create_new_llm(config=llm_config, service_id=service_id)

    def get_active_llm(self) -> LLM:
        return self.active_agent_llm

    def get_router(self, agent_config: AgentConfig) -> LLM:
        """The LLM the agent calls: the ``agent`` LLM, or a RouterLLM over it."""
        router_name = agent_config.model_routing.router_name
        if router_name == NOOP_ROUTER:
            return self.get_llm_from_agent_config(AGENT_SERVICE_ID, agent_config)
        existing = self.service_to_llm.get(ROUTER_SERVICE_ID)
        if existing is not None:
            return existing
        from openhands.llm.router import ROUTER_LLM_REGISTRY

        router_cls: type[RouterLLM] | None = ROUTER_LLM_REGISTRY.get(router_name)
        if router_cls is None:
            raise ValueError(f"Unknown router: {router_name}")
        router = router_cls(
            agent_config=agent_config,
            llm_registry=self,
            service_id=ROUTER_SERVICE_ID,
            retry_listener=self.retry_listener,
        )
        self.service_to_llm[ROUTER_SERVICE_ID] = router
        self.notify(RegistryEvent(llm=router, service_id=ROUTER_SERVICE_ID))
        return router

    # --- one-off calls -----------------------------------------------------------------

    def request_extraneous_completion(
        self, service_id: str, llm_config: LLMConfig, messages: list[Message] | list[dict[str, Any]]
    ) -> str:
        """A single completion on a side service (e.g. a title); the stripped reply text."""
        if service_id not in self.service_to_llm:
            self._create_new_llm(config=llm_config, service_id=service_id, with_listener=False)
        llm = self.service_to_llm[service_id]
        response = llm.completion(messages=messages)
        content = response.choices[0].message.content  # type: ignore[union-attr]
        return (content or "").strip()

    # --- subscription ------------------------------------------------------------------

    def subscribe(self, callback: RegistrySubscriber) -> None:
        """Set the subscriber and tell it about the active agent LLM right away."""
        self.subscriber = callback
        self.notify(RegistryEvent(llm=self.active_agent_llm, service_id=AGENT_SERVICE_ID))

    def notify(self, event: RegistryEvent) -> None:
        if self.subscriber is not None:
            self.subscriber(event)


def _same_config(llm: LLM, config: LLMConfig) -> bool:
    """Whether ``config`` is what ``llm`` runs with or what it was built from.

    An LLM fills in some fields itself (e.g. token limits from the model's info), so a caller
    repeating the original config must still count as asking for the same LLM.
    """
    return config == llm.config or config == getattr(llm, "original_config", None)
