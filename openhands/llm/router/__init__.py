"""Routers choose, per call, which configured LLM answers (``[model_routing] router_name``)."""

from openhands.llm.router.base import RouterLLM
from openhands.llm.router.multimodal import MultimodalRouter

ROUTER_LLM_REGISTRY: dict[str, type[RouterLLM]] = {
    MultimodalRouter.ROUTER_NAME: MultimodalRouter,
}

__all__ = ["ROUTER_LLM_REGISTRY", "MultimodalRouter", "RouterLLM"]
