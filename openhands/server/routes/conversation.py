"""Per-conversation routes that are not about files (`/api/conversations/{id}/…`, §6.4)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Body

from openhands.events.event_filter import EventFilter
from openhands.server.conversation_manager.conversation_manager import ConversationManagerError
from openhands.server.dependencies import (
    API_GUARDS,
    AttachedConversation,
    ConversationId,
    Conversations,
    Services,
)
from openhands.server.errors import ConversationNotFoundError, ErrorBodyError
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
from openhands.server.services.conversation_events import search_events
from openhands.server.session.user_actions import InvalidUserActionError

conversation_api_router = APIRouter(
    prefix="/api/conversations/{conversation_id}", tags=["conversation"], dependencies=API_GUARDS
)


@conversation_api_router.get("/config")
async def get_remote_runtime_config(conversation: AttachedConversation) -> RuntimeConfigResponse:
    runtime = conversation.runtime
    return RuntimeConfigResponse(
        runtime_id=getattr(runtime, "runtime_id", None), session_id=conversation.sid
    )


@conversation_api_router.get("/vscode-url")
async def get_vscode_url(conversation: AttachedConversation) -> VSCodeUrlResponse:
    try:
        url = await asyncio.to_thread(lambda: conversation.runtime.vscode_url)
    except Exception as error:
        raise ErrorBodyError(f"Error getting VSCode URL: {error}", vscode_url=None) from error
    return VSCodeUrlResponse(vscode_url=url)


@conversation_api_router.get("/web-hosts")
async def get_hosts(conversation: AttachedConversation) -> WebHostsResponse:
    try:
        hosts = await asyncio.to_thread(lambda: conversation.runtime.web_hosts)
    except Exception as error:
        raise ErrorBodyError(f"Error getting runtime hosts: {error}", hosts=None) from error
    return WebHostsResponse(hosts=dict(hosts or {}))


@conversation_api_router.get("/events")
async def search_conversation_events(
    conversation_id: ConversationId,
    conversations: Conversations,
    services: Services,
    start_id: int = 0,
    end_id: int | None = None,
    reverse: bool = False,
    limit: int = 20,
    filter: Annotated[dict[str, Any] | None, Body()] = None,
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


def _event_filter(raw: dict[str, Any] | None) -> EventFilter | None:
    if not raw:
        return None
    allowed = ("exclude_hidden", "query", "source", "start_date", "end_date")
    return EventFilter(**{key: raw[key] for key in allowed if key in raw})


@conversation_api_router.post("/events")
async def add_event(
    conversation_id: ConversationId,
    data: Annotated[dict[str, Any], Body()],
    conversations: Conversations,
    services: Services,
) -> SuccessResponse:
    await conversations.owned_metadata(conversation_id)
    try:
        await services.conversation_manager.send_event_to_conversation(conversation_id, data)
    except (ConversationManagerError, InvalidUserActionError) as error:
        raise ErrorBodyError(str(error), success=False) from error
    return SuccessResponse(success=True)


@conversation_api_router.post("/message")
async def add_message(
    conversation_id: ConversationId,
    body: AddMessageRequest,
    conversations: Conversations,
    services: Services,
) -> SuccessResponse:
    await conversations.owned_metadata(conversation_id)
    data = {"action": "message", "args": {"content": body.message}}
    try:
        await services.conversation_manager.send_event_to_conversation(conversation_id, data)
    except Exception as error:
        raise ErrorBodyError(
            f"Error adding message to conversation: {error}", success=False
        ) from error
    return SuccessResponse(success=True)


@conversation_api_router.get("/microagents")
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
