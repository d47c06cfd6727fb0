"""Compatibility path: the reference's ``openhands.server.data_models.feedback``.

``FeedbackDataModel`` is ``FeedbackRequest`` (``openhands/server/models/feedback.py``, which
also has the reference's ``feedback`` field); ``store_feedback(feedback)`` keeps the record
in the file store of this process (``openhands.server.shared``), as the feedback route
does — there is no share service — and returns the answer's JSON
(``statusCode``, ``body.feedback_id``, ``body.password``).
"""

from __future__ import annotations

from typing import Any

from openhands.server.models.feedback import FeedbackRequest
from openhands.server.services.feedback_service import write_feedback

FeedbackDataModel = FeedbackRequest

__all__ = ["FeedbackDataModel", "store_feedback"]


def store_feedback(feedback: FeedbackDataModel) -> dict[str, Any]:
    from openhands.server import shared

    response = write_feedback(
        shared.file_store,
        shared.server_config.feedback_dir,
        None,
        feedback,
        feedback.trajectory,
    )
    return response.model_dump()
