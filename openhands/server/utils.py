"""Compatibility path for the reference's ``openhands.server.utils``.

- ``validate_conversation_id`` is ``services/conversation_ids.check_conversation_id``: it
  returns the id or raises ``InvalidConversationIdError``, which is an ``HTTPException``
  (400, ``detail`` = the reason) as well as the project's own error;
- ``generate_unique_conversation_id`` is the one of ``services/conversation_ids.py``;
- ``get_conversation_store(request)``: the store of the app serving the request
  (``app_services.services_of``);
- ``get_conversation_metadata(conversation_id, store)``: the metadata, or
  ``HTTPException`` 404;
- ``get_conversation(conversation_id, user_id)``: the metadata in this process's store
  (``shared.process_services()``: the running app's, else the adapter's);
  404 when missing, 403 when another user owns it.
"""

from __future__ import annotations

from fastapi import HTTPException, Request

from openhands.server.app_services import services_of
from openhands.server.services.conversation_ids import (
    check_conversation_id as validate_conversation_id,
)
from openhands.server.services.conversation_ids import generate_unique_conversation_id
from openhands.storage.conversation.conversation_store import ConversationStore
from openhands.storage.data_models.conversation_metadata import ConversationMetadata

__all__ = [
    "generate_unique_conversation_id",
    "get_conversation",
    "get_conversation_metadata",
    "get_conversation_store",
    "validate_conversation_id",
]


async def _process_store() -> ConversationStore:
    # ``get_conversation`` names no request: this process's store (the adapter's lookup).
    from openhands.server import shared

    return (await shared.process_services()).conversation_store


async def get_conversation_store(request: Request) -> ConversationStore:
    return (await services_of(request.scope.get("app"))).conversation_store


async def get_conversation_metadata(
    conversation_id: str, conversation_store: ConversationStore
) -> ConversationMetadata:
    try:
        return await conversation_store.get_metadata(conversation_id)
    except FileNotFoundError as error:
        raise HTTPException(
            status_code=404, detail=f"Conversation {conversation_id} not found"
        ) from error


async def get_conversation(conversation_id: str, user_id: str | None) -> ConversationMetadata:
    validate_conversation_id(conversation_id)
    metadata = await get_conversation_metadata(conversation_id, await _process_store())
    if user_id is not None and metadata.user_id != user_id:
        raise HTTPException(status_code=403, detail="Permission denied")
    return metadata
