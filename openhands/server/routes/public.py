"""`/api/options/*`: what the settings pages offer (server-api §6.2)."""

from __future__ import annotations

import asyncio
import json
from functools import lru_cache

from fastapi import APIRouter, Depends, Response

from openhands.server.dependencies import Services, check_session_api_key
from openhands.server.errors import MappedErrorsRoute
from openhands.server.models.options import WebConfig
from openhands.utils.llm import OPENHANDS_MODELS, litellm_provider_ids

public_api_router = APIRouter(
    route_class=MappedErrorsRoute,
    prefix="/api/options",
    tags=["options"],
    dependencies=[Depends(check_session_api_key)],
)

DEFAULT_AGENTS = (
    "BrowsingAgent",
    "CodeActAgent",
    "DummyAgent",
    "LocAgent",
    "ReadOnlyAgent",
    "VisualBrowsingAgent",
)


@lru_cache(maxsize=1)
def litellm_models() -> tuple[str, ...]:
    """LiteLLM's known models as `provider/model` ids.

    Read from the price map LiteLLM ships (no LiteLLM import: a fresh install's first
    `/models` takes milliseconds). Only when LiteLLM would load another map does this need
    the module, and then it waits for the warm-up's import rather than importing again."""
    from openhands.llm.preload import load_litellm

    return tuple(litellm_provider_ids(load_litellm))


# The first call of each reads a 1.5 MB file (or, rarely, imports LiteLLM): they run in a
# worker thread so that the event loop (every other request and socket) is not held up.


@lru_cache(maxsize=1)
def model_list() -> list[str]:
    """What `/models` answers (sorted once; the server's warm-up fills this cache)."""
    return sorted(set(litellm_models()) | set(OPENHANDS_MODELS))


@lru_cache(maxsize=1)
def models_body() -> bytes:
    """`model_list()` as the JSON body, encoded once: validating and encoding ~2,800
    strings on every request cost more than the rest of the request."""
    return json.dumps(model_list(), ensure_ascii=False, separators=(",", ":")).encode()


@public_api_router.get("/models", response_model=list[str])
async def get_models() -> Response:
    if models_body.cache_info().currsize:
        body = models_body()
    else:
        body = await asyncio.to_thread(models_body)
    return Response(body, media_type="application/json")


def _registered_agents() -> list[str]:
    try:
        import openhands.agenthub  # noqa: F401  (registers the agents)
        from openhands.controller.agent import Agent

        return Agent.list_agents()
    except ImportError:
        return []


@public_api_router.get("/agents")
async def get_agents() -> list[str]:
    registered = await asyncio.to_thread(_registered_agents)
    return sorted(registered or DEFAULT_AGENTS)


@public_api_router.get("/security-analyzers")
async def get_security_analyzers() -> list[str]:
    from openhands.security.options import SecurityAnalyzers

    return sorted(SecurityAnalyzers)


@public_api_router.get("/config")
async def get_config(services: Services) -> WebConfig:
    return WebConfig.model_validate(services.server_config.get_config())


app = public_api_router  # the reference's name of this router
