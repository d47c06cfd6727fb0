"""Opaque page ids: the base64 of the decimal offset where the next page starts."""

from __future__ import annotations

import base64
import binascii


class InvalidPageIdError(ValueError):
    """A page id that this store did not hand out."""


def offset_to_page_id(offset: int, has_next: bool) -> str | None:
    """The page id for ``offset`` (e.g. 20 gives ``"MjA="``), or None on the last page."""
    if not has_next:
        return None
    return base64.b64encode(str(offset).encode("ascii")).decode("ascii")


def page_id_to_offset(page_id: str | None) -> int:
    """The offset a page id stands for; no page id means the first page (0)."""
    if not page_id:
        return 0
    try:
        text = base64.b64decode(page_id.encode("ascii"), validate=True).decode("ascii")
        offset = int(text)
    except (binascii.Error, UnicodeError, ValueError) as error:
        raise InvalidPageIdError(f"Invalid page id: {page_id!r}") from error
    if offset < 0 or not text.isdigit():
        raise InvalidPageIdError(f"Invalid page id: {page_id!r}")
    return offset
