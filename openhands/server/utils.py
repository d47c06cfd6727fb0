"""Compatibility path for the reference's ``openhands.server.utils``.

``validate_conversation_id`` is ``openhands.server.services.conversation_ids.check_conversation_id``:
it returns the id, or raises ``InvalidConversationIdError``, which the server answers with
HTTP 400 ``{"detail": ...}``.
"""

from openhands.server.services.conversation_ids import (
    check_conversation_id as validate_conversation_id,
)

__all__ = ["validate_conversation_id"]
