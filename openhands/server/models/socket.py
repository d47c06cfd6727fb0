"""Payloads the server pushes as `oh_event` besides events (server-api §7.5)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# One `oh_event` payload as sent (an event's JSON or one of the models below, dumped).
Payload = dict[str, object]


class StatusUpdate(BaseModel):
    status_update: Literal[True] = True
    type: Literal["info", "error"]
    id: str = Field(description="A RuntimeStatus or message id")
    message: str


class TitleUpdate(BaseModel):
    status_update: Literal[True] = True
    type: Literal["info"] = "info"
    message: str = Field(description="The conversation id")
    conversation_title: str


class ErrorPayload(BaseModel):
    error: Literal[True] = True
    message: str
    error_code: int | None = Field(default=None, description="401 means the session expired")
