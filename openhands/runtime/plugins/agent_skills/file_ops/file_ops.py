"""A windowed file viewer and text search for the IPython kernel (runtime.md §7).

The functions print for the agent and return nothing; their texts are 0.59's. The viewer
keeps one open file and a window position in module state (``CURRENT_FILE``,
``CURRENT_LINE``), so ``scroll_down()`` continues where ``open_file`` left. The functions reach ``_print_window`` through this
module's namespace at call time, so patching it here takes effect.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator

# Lines a window shows unless open_file is told otherwise.
WINDOW = 100
MAX_MATCHED_FILES = 100
MSG_FILE_UPDATED = (
    "[File updated (edited at line {line_number}). Please review the changes and make sure "
    "they are correct (correct indentation, no duplicate lines, etc). Edit the file again if "
    "necessary.]"
)
LINTER_ERROR_MSG = (
    "[Your proposed edit has introduced new syntax error(s). Please understand the errors "
    "and retry your edit command.]\n"
)

# The viewer's state: the open file (absolute path) and the line its window is at.
CURRENT_FILE: str | None = None
CURRENT_LINE = 1
# The most lines one window shows (open_file's context_lines is capped to it).
MAX_CONTEXT_LINES = 100
SCROLL_HINT = "[Use `scroll_down` to view the next 100 lines of the file!]"
NO_OPEN_FILE = "No file open. Use the open_file function first."


class LineNumberError(ValueError):
    """A line number outside the file (the reference exports this name)."""


def _error(message: str) -> None:
    print(f"ERROR: {message}")


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(value, high))


def _read_lines(path: str) -> list[str]:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read().splitlines()


def _line_count(path: str) -> int:
    """Lines as the header counts them; an empty file still has one (empty) line."""
    return max(1, len(_read_lines(path)))


def _open_file_or_error(file_path: str | None = None) -> str | None:
    path = file_path or CURRENT_FILE
    if not path or not os.path.isfile(path):
        _error(NO_OPEN_FILE)
        return None
    return path


def _header(path: str, total: int) -> str:
    return f"[File: {os.path.abspath(path)} ({total} lines total)]\n"


def _print_window(
    file_path: str | None,
    targeted_line: int,
    window: int,
    return_str: bool = False,
    ignore_window: bool = False,
) -> str:
    """The numbered lines of a window of ``file_path`` with "more lines" markers.

    The window is centred on ``targeted_line`` or, with ``ignore_window`` (scrolling),
    starts there; it never runs past either end of the file. Moves ``CURRENT_LINE`` to the
    (clamped) target. Printed unless ``return_str``, in which case it is returned.
    """
    global CURRENT_LINE
    path = _open_file_or_error(file_path)
    if path is None:
        return ""
    lines = _read_lines(path) or [""]
    total = len(lines)
    CURRENT_LINE = _clamp(targeted_line, 1, total)
    if ignore_window:
        start, end = CURRENT_LINE, min(total, CURRENT_LINE + window)
    else:
        half = max(1, window // 2)
        start, end = max(1, CURRENT_LINE - half), min(total, CURRENT_LINE + half)
    # A window that hits one end of the file is filled up from the other side.
    if start == 1:
        end = min(total, window)
    if end == total:
        start = max(1, total - window + 1)
    parts = [
        f"({start - 1} more lines above)" if start > 1 else "(this is the beginning of the file)"
    ]
    parts.extend(f"{number}|{lines[number - 1]}" for number in range(start, end + 1))
    parts.append(
        f"({total - end} more lines below)" if end < total else "(this is the end of the file)"
    )
    text = "\n".join(parts)
    if return_str:
        return text
    print(text)
    return ""


def open_file(path: str, line_number: int | None = 1, context_lines: int | None = WINDOW) -> None:
    """Open a file and show a window of its lines around `line_number` (1-based).

    To see the rest of the file, use scroll_down and scroll_up.

    Args:
        path: the file to open (absolute, or relative to the current directory).
        line_number: the line to center the window on (default 1).
        context_lines: how many lines the window shows (default and at most 100).
    """
    global CURRENT_FILE, CURRENT_LINE
    if not os.path.isfile(path):
        _error(f"File {path} not found.")
        return
    CURRENT_FILE = os.path.abspath(path)
    total = _line_count(CURRENT_FILE)
    if not isinstance(line_number, int) or not 1 <= line_number <= total:
        _error(f"Line number must be between 1 and {total}")
        return
    CURRENT_LINE = line_number
    if context_lines is None or context_lines < 1:
        context_lines = WINDOW
    window = _clamp(context_lines, 1, MAX_CONTEXT_LINES)
    output = _header(CURRENT_FILE, total)
    output += _print_window(CURRENT_FILE, CURRENT_LINE, window, return_str=True)
    if output.endswith("more lines below)"):
        output += "\n" + SCROLL_HINT
    print(output)


def goto_line(line_number: int) -> None:
    """Move the window of the open file so that it is centred on `line_number`.

    Args:
        line_number: the line to show (1-based).
    """
    path = _open_file_or_error()
    if path is None:
        return
    total = _line_count(path)
    if not isinstance(line_number, int) or not 1 <= line_number <= total:
        _error(f"Line number must be between 1 and {total}.")
        return
    global CURRENT_LINE
    CURRENT_LINE = line_number
    print(_header(path, total) + _print_window(path, CURRENT_LINE, WINDOW, return_str=True))


def _scroll(lines: int) -> None:
    global CURRENT_LINE
    path = _open_file_or_error()
    if path is None:
        return
    total = _line_count(path)
    CURRENT_LINE = _clamp(CURRENT_LINE + lines, 1, total)
    window = _print_window(path, CURRENT_LINE, WINDOW, return_str=True, ignore_window=True)
    print(_header(path, total) + window)


def scroll_down() -> None:
    """Move the window of the open file down by 100 lines."""
    _scroll(WINDOW)


def scroll_up() -> None:
    """Move the window of the open file up by 100 lines."""
    _scroll(-WINDOW)


def _text_files(dir_path: str) -> Iterator[str]:
    for root, dirs, files in os.walk(dir_path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                yield os.path.join(root, name)


def _matching_lines(path: str, term: str) -> list[tuple[int, str]]:
    try:
        with open(path, encoding="utf-8") as handle:
            return [(n, line.rstrip("\n")) for n, line in enumerate(handle, 1) if term in line]
    except (UnicodeDecodeError, OSError):
        return []  # binary or unreadable: not searchable text


def search_dir(search_term: str, dir_path: str = "./") -> None:
    """Find `search_term` in every text file under `dir_path` (hidden entries skipped).

    Args:
        search_term: the text to look for (plain text, case-sensitive).
        dir_path: the directory to search (default: the current directory).
    """
    if not os.path.isdir(dir_path):
        _error(f"Directory {dir_path} not found")
        return
    hits = {
        path: found
        for path in _text_files(dir_path)
        if (found := _matching_lines(path, search_term))
    }
    if not hits:
        print(f'No matches found for "{search_term}" in {dir_path}')
        return
    if len(hits) > MAX_MATCHED_FILES:
        # Names the actual count, as 0.59 does ("More than 999 files matched ...").
        print(
            f'More than {len(hits)} files matched for "{search_term}" in {dir_path}. '
            "Please narrow your search."
        )
        return
    count = sum(len(found) for found in hits.values())
    print(f'[Found {count} matches for "{search_term}" in {dir_path}]')
    for path, found in hits.items():
        for number, text in found:
            print(f"{path} (Line {number}): {text}")
    print(f'[End of matches for "{search_term}" in {dir_path}]')


def search_file(search_term: str, file_path: str | None = None) -> None:
    """Find `search_term` in one file (default: the file opened with open_file).

    Args:
        search_term: the text to look for (plain text, case-sensitive).
        file_path: the file to search; the open file when omitted.
    """
    path = file_path if file_path is not None else CURRENT_FILE
    if path is None:
        _error("No file specified or open. Use the open_file function first.")
        return
    if not os.path.isfile(path):
        _error(f"File {path} not found.")
        return
    found = _matching_lines(path, search_term)
    if not found:
        print(f'[No matches found for "{search_term}" in {path}]')
        return
    print(f'[Found {len(found)} matches for "{search_term}" in {path}]')
    for number, text in found:
        print(f"Line {number}: {text}")
    print(f'[End of matches for "{search_term}" in {path}]')


def find_file(file_name: str, dir_path: str = "./") -> None:
    """Find files whose name contains `file_name` (or matches it as a shell pattern such
    as `*.py`) under `dir_path`.

    Args:
        file_name: the name, part of a name, or pattern to look for.
        dir_path: the directory to search (default: the current directory).
    """
    if not os.path.isdir(dir_path):
        _error(f"Directory {dir_path} not found")
        return
    found = [
        os.path.join(root, name)
        for root, _dirs, files in os.walk(dir_path)
        for name in sorted(files)
        if file_name in name or fnmatch.fnmatch(name, file_name)
    ]
    if not found:
        print(f'[No matches found for "{file_name}" in {dir_path}]')
        return
    print(f'[Found {len(found)} matches for "{file_name}" in {dir_path}]')
    for path in found:
        print(path)
    print(f'[End of matches for "{file_name}" in {dir_path}]')
