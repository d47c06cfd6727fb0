"""Shared checks and helpers for condensers that keep a head and a recent tail."""

from __future__ import annotations

from collections.abc import Iterable

from openhands.events.action.agent import CondensationAction


def check_window(keep_first: int, max_size: int) -> None:
    """The head must fit in half of the target size, or nothing would ever be forgotten."""
    if keep_first < 0:
        raise ValueError(f"keep_first ({keep_first}) cannot be negative")
    if max_size < 1:
        raise ValueError(f"max_size ({max_size}) must be at least 1")
    if keep_first >= max_size // 2:
        raise ValueError(
            f"keep_first ({keep_first}) must be less than half of max_size ({max_size})"
        )


def forget_range(event_ids: Iterable[int], **summary: object) -> CondensationAction:
    """Forget every id from the smallest to the largest of ``event_ids`` (inclusive).

    Events without an id (e.g. an inserted summary) are not part of the range; with no
    ids at all the action forgets an empty list.
    """
    ids = [event_id for event_id in event_ids if event_id >= 0]
    if not ids:
        return CondensationAction(forgotten_event_ids=[], **summary)  # type: ignore[arg-type]
    return CondensationAction(
        forgotten_events_start_id=min(ids),
        forgotten_events_end_id=max(ids),
        **summary,  # type: ignore[arg-type]
    )
