"""Per-conversation routes that are not about files (`/api/conversations/{id}/…`, §6.4)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Body
from pydantic import BaseModel, Field

from openhands.events.event_filter import EventFilter
from openhands.server import errors
from openhands.server.conversation_manager.conversation_manager import ConversationManagerError
from openhands.server.dependencies import (
    API_GUARDS,
    AttachedConversation,
    ConversationId,
    Conversations,
    Services,
)
from openhands.server.errors import ConversationNotFoundError, ErrorBodyError, MappedErrorsRoute
from openhands.server.models.conversation import (
    AddMessageRequest,
    EventPage,
    MicroagentInfo,
    MicroagentInput,
    MicroagentsResponse,
    RuntimeConfigResponse,
    SuccessResponse,
    VSCodeUrlResponse,
    WebHostsResponse,
)
from openhands.server.routes.web_host_probe import live_web_hosts
from openhands.server.services.conversation_events import search_events
from openhands.server.session.server_conversation import ServerConversation
from openhands.server.session.user_actions import InvalidUserActionError
from openhands.server.shared import module_getattr

if TYPE_CHECKING:
    from openhands.runtime.base import Runtime


class EventFilterBody(BaseModel):
    """The optional body of `GET …/events` (§6.4). Typed, so that a wrong type is a 422
    rather than a crash inside the filter; unknown keys are ignored."""

    exclude_hidden: bool = False
    query: str | None = Field(default=None, description="Case-insensitive substring")
    source: str | None = None
    start_date: datetime | None = None
    end_date: datetime | None = None


SEND_ERRORS: errors.Responses = {
    400: errors.error("Not an action the conversation accepts (`success: false`)"),
    404: errors.detail("No such conversation"),
    409: errors.error("The conversation is not running (`success: false`)"),
}

conversation_api_router = APIRouter(
    route_class=MappedErrorsRoute,
    prefix="/api/conversations/{conversation_id}",
    tags=["conversation"],
    dependencies=API_GUARDS,
)


@conversation_api_router.get("/config", responses=errors.ATTACHED_RESPONSES)
async def get_remote_runtime_config(conversation: AttachedConversation) -> RuntimeConfigResponse:
    runtime = conversation.runtime
    return RuntimeConfigResponse(
        runtime_id=getattr(runtime, "runtime_id", None), session_id=conversation.sid
    )


def _runtime_of(conversation: ServerConversation) -> Runtime:
    if conversation.runtime is None:
        raise RuntimeError("Runtime not yet initialized")
    return conversation.runtime


@conversation_api_router.get(
    "/vscode-url",
    responses={**errors.ATTACHED_RESPONSES, 500: errors.error("The runtime has no VSCode URL")},
)
async def get_vscode_url(conversation: AttachedConversation) -> VSCodeUrlResponse:
    try:
        url = await asyncio.to_thread(lambda: _runtime_of(conversation).vscode_url)
    except Exception as error:
        raise ErrorBodyError(f"Error getting VSCode URL: {error}", vscode_url=None) from error
    return VSCodeUrlResponse(vscode_url=url)


@conversation_api_router.get(
    "/web-hosts",
    responses={**errors.ATTACHED_RESPONSES, 500: errors.error("The runtime's hosts are unknown")},
)
async def get_hosts(conversation: AttachedConversation, live: bool = False) -> WebHostsResponse:
    """The sandbox's app URLs (§6.4). Our UI adds ``?live=true`` to keep only the ones that
    answer an HTTP request; without it the answer is the reference's."""
    try:
        hosts = await asyncio.to_thread(lambda: _runtime_of(conversation).web_hosts)
    except Exception as error:
        raise ErrorBodyError(f"Error getting runtime hosts: {error}", hosts=None) from error
    hosts = dict(hosts or {})
    if live:
        hosts = await live_web_hosts(hosts)
    return WebHostsResponse(hosts=hosts)


@conversation_api_router.get(
    "/events",
    responses={
        400: errors.detail("`limit` outside 0..100, or an invalid conversation id"),
        404: errors.detail("No such conversation"),
    },
)
async def search_conversation_events(
    conversation_id: ConversationId,
    conversations: Conversations,
    services: Services,
    start_id: int = 0,
    end_id: int | None = None,
    reverse: bool = False,
    limit: int = 20,
    filter: Annotated[EventFilterBody | None, Body()] = None,
) -> EventPage:
    metadata = await conversations.owned_metadata(conversation_id)
    if metadata is None:
        raise ConversationNotFoundError(conversation_id)
    event_filter = _event_filter(filter)
    events, has_more = await asyncio.to_thread(
        search_events,
        services.file_store,
        conversation_id,
        metadata.user_id,
        start_id,
        end_id,
        reverse,
        event_filter,
        limit,
    )
    return EventPage(events=events, has_more=has_more)


def _event_filter(body: EventFilterBody | None) -> EventFilter | None:
    if body is None:
        return None
    fields = body.model_dump(exclude_unset=True)
    return EventFilter(**fields) if fields else None


@conversation_api_router.post("/events", responses=SEND_ERRORS)
async def add_event(
    conversation_id: ConversationId,
    data: Annotated[dict[str, Any], Body()],
    conversations: Conversations,
    services: Services,
) -> SuccessResponse:
    await _existing(conversations, conversation_id)
    try:
        await services.conversation_manager.send_event_to_conversation(conversation_id, data)
    except ConversationManagerError as error:
        raise ErrorBodyError(str(error), 409, success=False) from error
    except InvalidUserActionError as error:
        raise ErrorBodyError(str(error), 400, success=False) from error
    return SuccessResponse(success=True)


async def _existing(conversations: Conversations, conversation_id: str) -> None:
    """404 for a conversation that does not exist (403 for another user's)."""
    if await conversations.owned_metadata(conversation_id) is None:
        raise ConversationNotFoundError(conversation_id)


@conversation_api_router.post(
    "/message",
    responses={**SEND_ERRORS, 500: errors.error("Adding the message failed")},
)
async def add_message(
    conversation_id: ConversationId,
    body: AddMessageRequest,
    conversations: Conversations,
    services: Services,
) -> SuccessResponse:
    await _existing(conversations, conversation_id)
    data = {"action": "message", "args": {"content": body.message}}
    try:
        await services.conversation_manager.send_event_to_conversation(conversation_id, data)
    except (ConversationManagerError, InvalidUserActionError) as error:
        # Not running (409) or not a message the agent can take (400): the caller's to fix.
        status = 409 if isinstance(error, ConversationManagerError) else 400
        raise ErrorBodyError(
            f"Error adding message to conversation: {error}", status, success=False
        ) from error
    except Exception as error:
        raise ErrorBodyError(
            f"Error adding message to conversation: {error}", success=False
        ) from error
    return SuccessResponse(success=True)


@conversation_api_router.get(
    "/microagents",
    responses={
        404: errors.error("No such conversation, no agent loop, or its memory is not ready"),
        500: errors.error("Reading the microagents failed"),
    },
)
async def get_microagents(
    conversation_id: ConversationId, conversations: Conversations, services: Services
) -> MicroagentsResponse:
    await conversations.owned_metadata(conversation_id)
    agent_session = services.conversation_manager.get_agent_session(conversation_id)
    if agent_session is None:
        raise ErrorBodyError("Agent session not found for this conversation", 404)
    memory = agent_session.memory
    if memory is None:
        raise ErrorBodyError("Memory is not yet initialized for this conversation", 404)
    try:
        found = [
            *(_microagent_info(agent, "repo") for agent in memory.repo_microagents.values()),
            *(
                _microagent_info(agent, "knowledge")
                for agent in memory.knowledge_microagents.values()
            ),
        ]
    except Exception as error:
        raise ErrorBodyError(f"Error getting microagents: {error}") from error
    return MicroagentsResponse(microagents=found)


def _microagent_info(agent: Any, kind: str) -> MicroagentInfo:
    metadata = agent.metadata
    tools = metadata.mcp_tools.stdio_servers if metadata.mcp_tools is not None else []
    return MicroagentInfo(
        name=agent.name,
        type=kind,  # type: ignore[arg-type]
        content=agent.content,
        triggers=list(metadata.triggers) if kind == "knowledge" else [],
        inputs=[MicroagentInput(name=i.name, description=i.description) for i in metadata.inputs],
        tools=[server.name for server in tools],
    )


app = conversation_api_router  # the reference's name of this router
__getattr__ = module_getattr(__name__, ("conversation_manager", "file_store"))
