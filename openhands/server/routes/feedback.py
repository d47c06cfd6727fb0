"""POST …/submit-feedback, stored locally (server-api §6.4)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter

from openhands.server import errors
from openhands.server.dependencies import API_GUARDS, AttachedConversation, Services
from openhands.server.errors import ErrorBodyError, MappedErrorsRoute
from openhands.server.models.feedback import FeedbackRequest, FeedbackResponse
from openhands.server.services.conversation_events import trajectory
from openhands.server.services.feedback_service import store_feedback

feedback_api_router = APIRouter(
    route_class=MappedErrorsRoute,
    prefix="/api/conversations/{conversation_id}",
    tags=["feedback"],
    dependencies=API_GUARDS,
)


@feedback_api_router.post(
    "/submit-feedback",
    responses={**errors.ATTACHED_RESPONSES, 500: errors.error("Storing the feedback failed")},
)
async def submit_feedback(
    body: FeedbackRequest, conversation: AttachedConversation, services: Services
) -> FeedbackResponse:
    try:
        events = await asyncio.to_thread(trajectory, conversation.event_stream)
        return await store_feedback(
            services.file_store,
            services.server_config.feedback_dir,
            conversation.sid,
            body,
            events,
        )
    except Exception as error:
        raise ErrorBodyError("Failed to submit feedback") from error


app = feedback_api_router  # the reference's name of this router
