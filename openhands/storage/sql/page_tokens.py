"""Page ids of the SQL conversation store: a keyset cursor, still base64 and opaque.

The file store's page id is the base64 of an offset (``"MjA="`` is 20). Here the next
page starts *after* the last row handed out, so its id is the base64 of
``<created_at in µs since the epoch>:<conversation_id>``: PostgreSQL then seeks straight to
it in the listing index, and a page costs the same at any depth. An offset id (one the file
store handed out, or ``"MA=="``) is still accepted and read with ``OFFSET``.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from openhands.storage.conversation.paging import InvalidPageIdError, page_id_to_offset

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


@dataclass(frozen=True)
class Keyset:
    """The (sort key, tie-breaker) of the last row of the previous page."""

    created_at: datetime
    conversation_id: str


def keyset_page_id(created_at: datetime, conversation_id: str) -> str:
    micros = (created_at - _EPOCH) // _MICROSECOND
    return base64.b64encode(f"{micros}:{conversation_id}".encode()).decode("ascii")


def parse_page_id(page_id: str | None) -> Keyset | int:
    """A keyset cursor, or the offset of an offset page id (0 for none)."""
    if not page_id:
        return 0
    try:
        text = base64.b64decode(page_id.encode("ascii"), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError) as error:
        raise InvalidPageIdError(f"Invalid page id: {page_id!r}") from error
    if ":" not in text:
        return page_id_to_offset(page_id)
    micros, _, conversation_id = text.partition(":")
    try:
        created_at = _EPOCH + int(micros) * _MICROSECOND
    except (ValueError, OverflowError) as error:
        raise InvalidPageIdError(f"Invalid page id: {page_id!r}") from error
    if not conversation_id or not micros.lstrip("-").isdigit():
        raise InvalidPageIdError(f"Invalid page id: {page_id!r}")
    return Keyset(created_at, conversation_id)
