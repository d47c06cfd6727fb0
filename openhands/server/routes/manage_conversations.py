"""The conversation collection (`/api/conversations`, server-api §6.3)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Annotated, Protocol, TypeVar

from fastapi import APIRouter, Body, Query
from fastapi.exceptions import RequestValidationError

from openhands.events.event_store import EventStore
from openhands.integrations.provider import ProviderHandler, ProviderToken, ProviderType
from openhands.server import errors
from openhands.server.dependencies import (
    API_GUARDS,
    ConversationId,
    Conversations,
    Providers,
    Services,
    UserId,
)
from openhands.server.errors import ConversationNotFoundError, MappedErrorsRoute
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
    complete_remember_prompt,
    events_around,
    extract_update_prompt,
    read_events_around,
    remember_prompt_request,
)
from openhands.server.services.conversation_service import conversation_infos
from openhands.server.shared import module_getattr
from openhands.storage.conversation.conversation_store import ConversationStore
from openhands.storage.data_models.conversation_metadata import (
    ConversationMetadata,
    ConversationTrigger,
)
from openhands.storage.locations import get_experiment_config_filename

# A page holds at least one conversation; 0.59 crashed (500) on a negative limit.
PageLimit = Annotated[int, Query(ge=1, le=10_000, description="Conversations per page")]

PAGE_ERRORS: errors.Responses = {400: errors.detail("A `page_id` this server did not hand out")}

manage_conversation_api_router = APIRouter(
    route_class=MappedErrorsRoute, prefix="/api", tags=["conversations"], dependencies=API_GUARDS
)


@manage_conversation_api_router.post(
    "/conversations",
    responses={
        400: errors.status_error(
            "No settings stored (`CONFIGURATION$SETTINGS_NOT_FOUND`) or no LLM key "
            "(`STATUS$ERROR_LLM_AUTHENTICATION`)"
        ),
        401: errors.text("The repository cannot be accessed (a bare string)"),
        403: errors.detail("The requested conversation id belongs to another user"),
    },
)
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


@manage_conversation_api_router.get("/conversations", responses=PAGE_ERRORS)
async def search_conversations(
    conversations: Conversations,
    page_id: str | None = None,
    limit: PageLimit = 20,
    selected_repository: str | None = None,
    conversation_trigger: ConversationTrigger | None = None,
) -> ConversationInfoResultSet:
    return await conversations.search(page_id, limit, selected_repository, conversation_trigger)


@manage_conversation_api_router.get("/conversations/{conversation_id}")
async def get_conversation(
    conversation_id: ConversationId, conversations: Conversations
) -> ConversationInfo | None:
    return await conversations.get(conversation_id)


@manage_conversation_api_router.patch(
    "/conversations/{conversation_id}",
    responses={
        403: errors.status_error("Another user's conversation (`AUTHORIZATION$PERMISSION_DENIED`)"),
        404: errors.status_error("No such conversation (`CONVERSATION$NOT_FOUND`)"),
        500: errors.status_error("Saving failed (`CONVERSATION$UPDATE_ERROR`)"),
    },
)
async def update_conversation(
    conversation_id: ConversationId, body: UpdateConversationRequest, conversations: Conversations
) -> bool:
    return await conversations.rename(conversation_id, body.title)


@manage_conversation_api_router.delete("/conversations/{conversation_id}")
async def delete_conversation(
    conversation_id: ConversationId, conversations: Conversations
) -> bool:
    return await conversations.delete(conversation_id)


@manage_conversation_api_router.post(
    "/conversations/{conversation_id}/start",
    responses={
        400: errors.status_error("No settings stored, or an invalid conversation id"),
        404: errors.status_error("No such conversation"),
        500: errors.status_error("Starting the agent loop failed"),
    },
)
async def start_conversation(
    conversation_id: ConversationId,
    body: Annotated[ProvidersSetRequest, Body()],
    conversations: Conversations,
) -> ConversationResponse:
    return await conversations.start(conversation_id, body.providers_set)


@manage_conversation_api_router.post(
    "/conversations/{conversation_id}/stop",
    responses={500: errors.status_error("Stopping the agent loop failed")},
)
async def stop_conversation(
    conversation_id: ConversationId, conversations: Conversations
) -> ConversationResponse:
    return await conversations.stop(conversation_id)


@manage_conversation_api_router.get(
    "/conversations/{conversation_id}/remember-prompt",
    responses={
        400: errors.error("No LLM model in the settings (or no settings, or a bad id)"),
        404: errors.detail("No such conversation"),
        502: errors.error("The LLM could not be reached or failed"),
        503: errors.error(
            "The LLM did not answer in time (`REMEMBER_PROMPT_TIMEOUT`) or is rate-limited"
        ),
    },
)
async def remember_prompt(
    conversation_id: ConversationId,
    event_id: Annotated[int, Query()],
    conversations: Conversations,
    services: Services,
) -> RememberPromptResponse:
    metadata = await conversations.owned_metadata(conversation_id)
    if metadata is None:
        raise ConversationNotFoundError(conversation_id)
    settings = await conversations.settings_or_raise()
    store = EventStore(conversation_id, services.file_store, metadata.user_id)
    events = await read_events_around(store, event_id)
    reply = await complete_remember_prompt(remember_prompt_request(events), settings)
    return RememberPromptResponse(prompt=extract_update_prompt(reply))


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


@manage_conversation_api_router.get("/microagent-management/conversations", responses=PAGE_ERRORS)
async def microagent_management_conversations(
    conversations: Conversations,
    providers: Providers,
    selected_repository: str,
    page_id: str | None = None,
    limit: PageLimit = 20,
) -> ConversationInfoResultSet:
    """The repository's microagent-management conversations, without those whose last
    pull request is closed or merged (one whose state cannot be found out stays)."""
    page = await conversations.search(
        page_id, limit, selected_repository, ConversationTrigger.MICROAGENT_MANAGEMENT
    )
    kept = await _without_closed_prs(page.results, providers.handler)
    return ConversationInfoResultSet(results=kept, next_page_id=page.next_page_id)


class _PullRequestChecker(Protocol):
    async def is_pr_open(
        self, repository: str, pr_number: int, git_provider: ProviderType
    ) -> bool: ...


_C = TypeVar("_C", ConversationInfo, ConversationMetadata)


async def _without_closed_prs(conversations: list[_C], handler: _PullRequestChecker) -> list[_C]:
    """``conversations`` less those whose last pull request is closed or merged."""
    return [
        c
        for c in conversations
        if not (c.pr_number and c.selected_repository and c.git_provider)
        or await handler.is_pr_open(c.selected_repository, c.pr_number[-1], c.git_provider)
    ]


# --- the reference's names ---------------------------------------------------------------

app = manage_conversation_api_router
ProvidersSetModel = ProvidersSetRequest
__getattr__ = module_getattr(
    __name__, ("ConversationStoreImpl", "config", "conversation_manager", "file_store")
)


def _get_contextual_events(event_store: EventStore, event_id: int) -> str:
    """The events `remember-prompt` shows the LLM around ``event_id``, one per line
    (blocking; the route reads them with ``read_events_around``)."""
    return "\n".join(str(event) for event in events_around(event_store, event_id))


# --- the reference's microagent-management function, for code that calls it directly ----
# (the route above is what the server serves; this takes the store and tokens as arguments
# and reads ``config``, ``conversation_manager`` and ``ProviderHandler`` here when called)


async def get_microagent_management_conversations(
    selected_repository: str,
    page_id: str | None = None,
    limit: int = 20,
    *,
    conversation_store: ConversationStore,
    provider_tokens: Mapping[ProviderType, ProviderToken] | None = None,
) -> ConversationInfoResultSet:
    """One page of ``conversation_store``: the microagent-management conversations of
    ``selected_repository`` younger than ``config.conversation_max_age_seconds``, without
    those whose last pull request is closed or merged."""
    page = await conversation_store.search(page_id, limit)
    module = sys.modules[__name__]
    recent = _filter_conversations_by_age(page.results, module.config.conversation_max_age_seconds)
    mine = [
        c
        for c in recent
        if c.trigger == ConversationTrigger.MICROAGENT_MANAGEMENT
        and c.selected_repository == selected_repository
    ]
    tokens = provider_tokens if provider_tokens is not None else MappingProxyType({})
    if not isinstance(tokens, MappingProxyType):
        tokens = MappingProxyType(dict(tokens))
    handler = ProviderHandler(tokens)
    kept = await _without_closed_prs(mine, handler)
    result: ConversationInfoResultSet = await module._build_conversation_result_set(
        kept, page.next_page_id
    )
    return result


def _filter_conversations_by_age(
    conversations: list[ConversationMetadata], max_age_seconds: int
) -> list[ConversationMetadata]:
    """Those created less than ``max_age_seconds`` ago (a record without a date stays)."""
    cutoff = datetime.now(UTC) - timedelta(seconds=max_age_seconds)
    kept = []
    for conversation in conversations:
        created = conversation.created_at
        if created is not None and created.tzinfo is None:
            created = created.replace(tzinfo=UTC)
        if created is None or created >= cutoff:
            kept.append(conversation)
    return kept


async def _build_conversation_result_set(
    conversations: list[ConversationMetadata], next_page_id: str | None
) -> ConversationInfoResultSet:
    """The page as the conversation list shows it, with this process's live loops."""
    manager = sys.modules[__name__].conversation_manager
    return ConversationInfoResultSet(
        results=await conversation_infos(manager, conversations), next_page_id=next_page_id
    )
