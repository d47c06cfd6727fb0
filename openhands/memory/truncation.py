"""Cutting long texts down to a head and a tail around a fixed marker."""

from __future__ import annotations

TRUNCATION_MARKER = "\n[... Observation truncated due to length ...]\n"


def truncate_content(content: str, max_chars: int | None = None) -> str:
    """Keep the first and last ``max_chars // 2`` characters of an over-long ``content``.

    ``None`` or a non-positive limit means no limit.
    """
    if max_chars is None or max_chars <= 0 or len(content) <= max_chars:
        return content
    half = max_chars // 2
    return content[:half] + TRUNCATION_MARKER + content[len(content) - half :]
