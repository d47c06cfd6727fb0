"""One page of a conversation metadata search."""

from __future__ import annotations

from pydantic import BaseModel, Field

from openhands.storage.data_models.conversation_metadata import ConversationMetadata


class ConversationMetadataResultSet(BaseModel):
    """``next_page_id`` is an opaque token for the next page, None on the last one."""

    results: list[ConversationMetadata] = Field(default_factory=list)
    next_page_id: str | None = None
