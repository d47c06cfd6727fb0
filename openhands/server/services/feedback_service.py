"""Feedback kept in the file store (the hosted share service of 0.59 is unreachable)."""

from __future__ import annotations

import asyncio
import json
import secrets
import uuid
from datetime import UTC, datetime
from typing import Any

from openhands.server.models.feedback import FeedbackBody, FeedbackRequest, FeedbackResponse
from openhands.storage.files import FileStore


async def store_feedback(
    file_store: FileStore,
    folder: str,
    conversation_id: str,
    request: FeedbackRequest,
    trajectory: list[dict[str, Any]] | None,
) -> FeedbackResponse:
    return await asyncio.to_thread(
        write_feedback, file_store, folder, conversation_id, request, trajectory
    )


def write_feedback(
    file_store: FileStore,
    folder: str,
    conversation_id: str | None,
    request: FeedbackRequest,
    trajectory: list[dict[str, Any]] | None,
) -> FeedbackResponse:
    """Write one feedback record (blocking); the answer names it and its password."""
    feedback_id = uuid.uuid4().hex
    password = secrets.token_urlsafe(12)
    record = {
        "feedback_id": feedback_id,
        "conversation_id": conversation_id,
        "created_at": datetime.now(UTC).isoformat(),
        "email": request.email,
        "version": request.version,
        "permissions": request.permissions,
        "polarity": request.polarity,
        "feedback": request.feedback,
        "password": password,
        "trajectory": request.trajectory if request.trajectory is not None else trajectory,
    }
    path = f"{folder.strip('/')}/{feedback_id}.json"
    file_store.write(path, json.dumps(record))
    return FeedbackResponse(
        body=FeedbackBody(
            message="Feedback stored locally", feedback_id=feedback_id, password=password
        )
    )
