"""Paging helpers under their reference import path.

``offset_to_page_id`` and ``page_id_to_offset`` are the storage layer's own functions
(compatibility path: ``openhands.storage.conversation.paging``). ``iterate`` walks every
page of a paged search.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from openhands.storage.conversation.paging import offset_to_page_id, page_id_to_offset


async def iterate(fn: Callable[..., Awaitable[Any]], **kwargs: Any) -> AsyncIterator[Any]:
    """Yield every item of every page: calls ``fn(page_id=..., **kwargs)`` and yields the
    ``results`` of each returned result set until its ``next_page_id`` is None."""
    page_id: str | None = None
    while True:
        result_set = await fn(page_id=page_id, **kwargs)
        for result in result_set.results:
            yield result
        page_id = result_set.next_page_id
        if page_id is None:
            return


__all__ = ["iterate", "offset_to_page_id", "page_id_to_offset"]
