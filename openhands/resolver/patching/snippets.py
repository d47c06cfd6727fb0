"""List and file-system helpers for the diff parser."""

from __future__ import annotations

import itertools
import os
import re
import shutil


def remove(path: str) -> None:
    """Delete ``path`` (a file or a whole directory) if it exists."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.remove(path)


def findall_regex(items: list[str], regex: re.Pattern[str]) -> list[int]:
    """The indices of the items ``regex`` matches (at their start)."""
    return [index for index, item in enumerate(items) if regex.match(item)]


def split_by_regex(items: list[str], regex: re.Pattern[str]) -> list[list[str]]:
    """``items`` cut before every match: the part before the first match (possibly empty),
    then one chunk per match. Without a match, the whole list is the only chunk."""
    starts = findall_regex(items, regex)
    if not starts:
        return [items]
    bounds = [0, *starts, len(items)]
    return [items[begin:end] for begin, end in itertools.pairwise(bounds)]


def which(program: str) -> str | None:
    """The path of the executable ``program`` (searched on ``PATH`` unless it has a
    directory part), or None."""
    found = shutil.which(program)
    return found if found and os.path.isfile(found) else None
