"""The conversation collection (`/api/conversations`, server-api §6.3)."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

from fastapi import APIRouter, Body, Query
from fastapi.exceptions import RequestValidationError

from openhands.server.dependencies import (
    API_GUARDS,
    ConversationId,
    Conversations,
    Services,
    UserId,
)
from openhands.server.errors import ConversationNotFoundError, ErrorBodyError
from openhands.server.models.conversation import (
    ConversationInfo,
    ConversationInfoResultSet,
    ConversationResponse,
    ExperimentConfigRequest,
    InitSessionRequest,
    ProvidersSetRequest,
    RememberPromptResponse,
    UpdateConversationRequest,
)
from openhands.server.services.conversation_events import (
    extract_update_prompt,
    read_events_around,
    remember_prompt_request,
)
from openhands.storage.data_models.conversation_metadata import ConversationTrigger
from openhands.storage.locations import get_experiment_config_filename

manage_conversation_api_router = APIRouter(
    prefix="/api", tags=["conversations"], dependencies=API_GUARDS
)


@manage_conversation_api_router.post("/conversations")
async def new_conversation(
    body: InitSessionRequest, conversations: Conversations, services: Services
) -> ConversationResponse:
    if body.conversation_id is not None and not services.server_config.allow_set_conversation_id:
        raise RequestValidationError(
            [
                {
                    "type": "extra_forbidden",
                    "loc": ("body", "conversation_id"),
                    "msg": "Extra inputs are not permitted",
                    "input": body.conversation_id,
                }
            ]
        )
    return await conversations.create(body)


@manage_conversation_api_router.get("/conversations")
async def search_conversations(
    conversations: Conversations,
    page_id: str | None = None,
    limit: int = 20,
    selected_repository: str | None = None,
    conversation_trigger: ConversationTrigger | None = None,
) -> ConversationInfoResultSet:
    return await conversations.search(page_id, limit, selected_repository, conversation_trigger)


@manage_conversation_api_router.get("/conversations/{conversation_id}")
async def get_conversation(
    conversation_id: ConversationId, conversations: Conversations
) -> ConversationInfo | None:
    return await conversations.get(conversation_id)


@manage_conversation_api_router.patch("/conversations/{conversation_id}")
async def update_conversation(
    conversation_id: ConversationId, body: UpdateConversationRequest, conversations: Conversations
) -> bool:
    return await conversations.rename(conversation_id, body.title)


@manage_conversation_api_router.delete("/conversations/{conversation_id}")
async def delete_conversation(
    conversation_id: ConversationId, conversations: Conversations
) -> bool:
    return await conversations.delete(conversation_id)


@manage_conversation_api_router.post("/conversations/{conversation_id}/start")
async def start_conversation(
    conversation_id: ConversationId,
    body: Annotated[ProvidersSetRequest, Body()],
    conversations: Conversations,
) -> ConversationResponse:
    return await conversations.start(conversation_id, body.providers_set)


@manage_conversation_api_router.post("/conversations/{conversation_id}/stop")
async def stop_conversation(
    conversation_id: ConversationId, conversations: Conversations
) -> ConversationResponse:
    return await conversations.stop(conversation_id)


@manage_conversation_api_router.get("/conversations/{conversation_id}/remember-prompt")
async def remember_prompt(
    conversation_id: ConversationId,
    event_id: Annotated[int, Query()],
    conversations: Conversations,
    services: Services,
) -> RememberPromptResponse:
    from openhands.events.event_store import EventStore

    metadata = await conversations.owned_metadata(conversation_id)
    if metadata is None:
        raise ConversationNotFoundError(conversation_id)
    settings = await conversations.settings_or_raise()
    store = EventStore(conversation_id, services.file_store, metadata.user_id)
    events = await read_events_around(store, event_id)
    reply = await asyncio.to_thread(_complete, remember_prompt_request(events), settings)
    return RememberPromptResponse(prompt=extract_update_prompt(reply))


def _complete(prompt: str, settings: object) -> str:
    from openhands.core.config import LLMConfig
    from openhands.llm.llm import LLM

    model = getattr(settings, "llm_model", None)
    if not model:
        raise ErrorBodyError("No LLM model configured")
    config = LLMConfig(
        model=model,
        api_key=getattr(settings, "llm_api_key", None),
        base_url=getattr(settings, "llm_base_url", None),
    )
    response = LLM(config=config, service_id="remember_prompt").completion(
        messages=[{"role": "user", "content": prompt}]
    )
    return response.choices[0].message.content or ""  # type: ignore[union-attr]


@manage_conversation_api_router.post("/conversations/{conversation_id}/exp-config")
async def add_experiment_config(
    conversation_id: ConversationId,
    body: ExperimentConfigRequest,
    conversations: Conversations,
    services: Services,
    user_id: UserId,
) -> bool:
    """Writes `exp_config.json` once. False when written or already there (as the reference)."""
    await conversations.owned_metadata(conversation_id)
    path = get_experiment_config_filename(conversation_id, user_id)
    store = services.file_store
    try:
        await asyncio.to_thread(store.read, path)
        return False
    except FileNotFoundError:
        pass
    try:
        await asyncio.to_thread(store.write, path, json.dumps(body.model_dump()))
    except Exception:
        return True
    return False


@manage_conversation_api_router.get("/microagent-management/conversations")
async def microagent_management_conversations(
    conversations: Conversations,
    selected_repository: str,
    page_id: str | None = None,
    limit: int = 20,
) -> ConversationInfoResultSet:
    return await conversations.search(
        page_id, limit, selected_repository, ConversationTrigger.MICROAGENT_MANAGEMENT
    )
