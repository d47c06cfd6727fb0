"""The editor's directory view: paths up to two levels deep, hidden entries left out."""

from __future__ import annotations

import os
from pathlib import Path

from openhands.runtime.utils.editor.render import DIRECTORY_CLIPPED_NOTICE, clip

MAX_DEPTH = 2


def _walk(root: Path, depth: int, out: list[tuple[str, bool]]) -> None:
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        is_dir = entry.is_dir(follow_symlinks=True)
        out.append((entry.path, is_dir))
        if is_dir and depth < MAX_DEPTH:
            _walk(Path(entry.path), depth + 1, out)


def count_hidden(root: Path) -> int:
    try:
        return sum(1 for entry in os.scandir(root) if entry.name.startswith("."))
    except OSError:
        return 0


def view_directory(path: Path) -> str:
    found: list[tuple[str, bool]] = [(str(path), True)]
    _walk(path, 1, found)
    # Sorted by the bare path, the way `find | sort` orders them; directories get a "/".
    found.sort(key=lambda item: item[0])
    listing = "\n".join(name.rstrip("/") + "/" if is_dir else name for name, is_dir in found)
    text = (
        f"Here's the files and directories up to 2 levels deep in {path}, "
        f"excluding hidden items:\n{listing}"
    )
    hidden = count_hidden(path)
    if hidden:
        text += (
            f"\n\n{hidden} hidden files/directories in this directory are excluded. "
            f"You can use 'ls -la {path}' to see them."
        )
    return clip(text, DIRECTORY_CLIPPED_NOTICE)
