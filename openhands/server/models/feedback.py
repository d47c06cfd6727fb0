"""REST models of POST …/submit-feedback (kept locally: no share service is reachable)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class FeedbackRequest(BaseModel):
    email: str
    version: str
    permissions: Literal["public", "private"] = "private"
    polarity: Literal["positive", "negative"]
    feedback: Literal["positive", "negative"] | None = Field(
        default=None, description="Kept with the record (the reference's field)"
    )
    token: str | None = None
    trajectory: list[dict[str, Any]] | None = None


class FeedbackBody(BaseModel):
    message: str
    feedback_id: str
    password: str


class FeedbackResponse(BaseModel):
    statusCode: int = Field(default=200, description="Mirrors the hosted share service")
    body: FeedbackBody
