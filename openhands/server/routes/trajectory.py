"""GET …/trajectory: the conversation's visible events, without browser DOM extras."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter

from openhands.server import errors
from openhands.server.dependencies import API_GUARDS, AttachedConversation, Services
from openhands.server.errors import ErrorBodyError, MappedErrorsRoute
from openhands.server.models.conversation import TrajectoryResponse
from openhands.server.services.conversation_events import trajectory

trajectory_router = APIRouter(
    route_class=MappedErrorsRoute,
    prefix="/api/conversations/{conversation_id}",
    tags=["trajectory"],
    dependencies=API_GUARDS,
)


@trajectory_router.get(
    "/trajectory",
    responses={**errors.ATTACHED_RESPONSES, 500: errors.error("Reading the events failed")},
)
async def get_trajectory(
    conversation: AttachedConversation, services: Services
) -> TrajectoryResponse:
    try:
        events = await asyncio.to_thread(
            trajectory, conversation.event_stream, services.config.save_screenshots_in_trajectory
        )
    except Exception as error:
        raise ErrorBodyError(f"Error getting trajectory: {error}", trajectory=None) from error
    return TrajectoryResponse(trajectory=events)


app = trajectory_router  # the reference's name of this router
