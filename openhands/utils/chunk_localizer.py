"""Finding the part of a file that a snippet is about, for the LLM-based editor.

The text is cut into chunks of whole lines; each chunk is scored by the length of its
longest common subsequence (LCS, over characters) with the query, divided by the chunk's
length (how much of the chunk the query covers), and the best chunks win.
"""

from __future__ import annotations

from pydantic import BaseModel


class Chunk(BaseModel):
    """Lines ``line_range[0]..line_range[1]`` (1-based, both included) of a text."""

    text: str
    line_range: tuple[int, int]
    normalized_lcs: float | None = None

    def visualize(self) -> str:
        """The lines with their numbers, one ``<n>|<line>\\n`` each; also printed."""
        first = self.line_range[0]
        rendered = "".join(
            f"{number}|{line}\n" for number, line in enumerate(self.text.split("\n"), start=first)
        )
        print(rendered, end="")
        return rendered


def create_chunks(text: str, size: int = 100, language: str | None = None) -> list[Chunk]:
    """Consecutive chunks of at most ``size`` lines covering ``text``. ``language`` is
    accepted for compatibility; chunks are always cut at line boundaries."""
    if size < 1:
        raise ValueError("size must be at least 1")
    lines = text.split("\n")
    chunks: list[Chunk] = []
    for start in range(0, len(lines), size):
        part = lines[start : start + size]
        chunks.append(Chunk(text="\n".join(part), line_range=(start + 1, start + len(part))))
    return chunks


def _lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence of ``a`` and ``b``, with a bit-parallel
    scan (one big-integer step per character of ``a``)."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for position, char in enumerate(b):
        masks[char] = masks.get(char, 0) | (1 << position)
    all_ones = (1 << len(b)) - 1
    row = all_ones
    for char in a:
        matches = row & masks.get(char, 0)
        row = ((row + matches) | (row - matches)) & all_ones
    return len(b) - row.bit_count()


def normalized_lcs(chunk: str, query: str) -> float:
    """LCS length of ``chunk`` and ``query`` over the chunk's length (0.0 for an empty
    chunk): 1.0 when the whole chunk appears, in order, within the query."""
    if not chunk:
        return 0.0
    return _lcs_length(chunk, query) / len(chunk)


def get_top_k_chunk_matches(
    text: str, query: str, k: int = 3, max_chunk_size: int = 100
) -> list[Chunk]:
    """The ``k`` chunks of ``text`` most like ``query``, best first (ties keep text order)."""
    scored = [
        chunk.model_copy(update={"normalized_lcs": normalized_lcs(chunk.text, query)})
        for chunk in create_chunks(text, max_chunk_size)
    ]
    scored.sort(key=lambda chunk: chunk.normalized_lcs or 0.0, reverse=True)
    return scored[:k]
