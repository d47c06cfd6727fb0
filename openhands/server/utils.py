"""Compatibility path for the reference's ``openhands.server.utils``.

- ``validate_conversation_id`` is ``services/conversation_ids.check_conversation_id``: it
  returns the id or raises ``InvalidConversationIdError``, which is an ``HTTPException``
  (400, ``detail`` = the reason) as well as the project's own error;
- ``generate_unique_conversation_id`` is the one of ``services/conversation_ids.py``;
- ``get_conversation_store(request)``: the store of the app serving the request (else
  ``ConversationStoreImpl`` of ``openhands.server.shared``);
- ``get_conversation_metadata(conversation_id, store)``: the metadata, or
  ``HTTPException`` 404;
- ``get_conversation(conversation_id, user_id)``: the metadata in the running app's store;
  404 when missing, 403 when another user owns it.
"""

from __future__ import annotations

from fastapi import HTTPException, Request

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


async def _shared_store(user_id: str | None) -> ConversationStore:
    from openhands.server import shared
    from openhands.server.app_services import running_services

    services = running_services()
    if services is not None:
        return services.conversation_store
    return await shared.ConversationStoreImpl.get_instance(shared.config, user_id)  # type: ignore[no-any-return]


async def get_conversation_store(request: Request) -> ConversationStore:
    services = getattr(getattr(request.scope.get("app"), "state", None), "services", None)
    if services is not None:
        return services.conversation_store  # type: ignore[no-any-return]
    from openhands.server.user_auth.request_auth import get_user_id

    return await _shared_store(await get_user_id(request))


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
    metadata = await get_conversation_metadata(conversation_id, await _shared_store(user_id))
    if user_id is not None and metadata.user_id != user_id:
        raise HTTPException(status_code=403, detail="Permission denied")
    return metadata
