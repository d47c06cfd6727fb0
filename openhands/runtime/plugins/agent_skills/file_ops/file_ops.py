"""A windowed file viewer and text search for the IPython kernel (runtime.md §7).

The functions print for the agent and return nothing. The viewer keeps one open file and
a window position in module state (``CURRENT_FILE``, ``CURRENT_LINE``), so ``scroll_down()``
continues where ``open_file`` left. The functions reach ``_print_window`` through this
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

# The viewer's state: the open file (absolute path), the line its window centres on, and
# the window size open_file chose.
CURRENT_FILE: str | None = None
CURRENT_LINE = 1
_current_window = WINDOW


class LineNumberError(ValueError):
    """A line number outside the file."""


def _check_line(line_number: int, total: int) -> None:
    if not 1 <= line_number <= max(total, 1):
        raise LineNumberError(
            f"Line number {line_number} is out of range: the file has {total} lines."
        )


def _read_lines(path: str) -> list[str]:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read().splitlines()


def _print_window(path: str, line: int, window: int) -> None:
    lines = _read_lines(path)
    total = len(lines)
    print(f"[File: {path} ({total} lines total)]")
    if total == 0:
        return
    start = max(1, line - window // 2)
    end = min(total, start + window - 1)
    start = max(1, min(start, end - window + 1))
    if start > 1:
        print(f"({start - 1} more lines above)")
    else:
        print("(this is the beginning of the file)")
    for number in range(start, end + 1):
        print(f"{number}|{lines[number - 1]}")
    if end < total:
        print(f"({total - end} more lines below)")
    else:
        print("(this is the end of the file)")


def _line_count(path: str) -> int:
    return len(_read_lines(path))


def open_file(path: str, line_number: int | None = 1, context_lines: int | None = WINDOW) -> None:
    """Open a file and show a window of its lines around `line_number` (1-based).

    Args:
        path: the file to open (absolute, or relative to the current directory).
        line_number: the line to center the window on (default 1).
        context_lines: how many lines the window shows (default 100).
    """
    global CURRENT_FILE, CURRENT_LINE, _current_window
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        print(f"ERROR: File {path} not found.")
        return
    line = line_number or 1
    try:
        _check_line(line, _line_count(path))
    except LineNumberError as error:
        print(f"ERROR: {error}")
        return
    CURRENT_FILE = path
    CURRENT_LINE = line
    _current_window = max(1, context_lines or WINDOW)
    _print_window(path, CURRENT_LINE, _current_window)


def _open_path() -> str | None:
    if CURRENT_FILE is None or not os.path.isfile(CURRENT_FILE):
        print("ERROR: No file is open. Use open_file(path) first.")
        return None
    return CURRENT_FILE


def goto_line(line_number: int) -> None:
    """Move the window of the open file so that it shows `line_number`.

    Args:
        line_number: the line to show (1-based).
    """
    global CURRENT_LINE
    path = _open_path()
    if path is None:
        return
    try:
        _check_line(line_number, _line_count(path))
    except LineNumberError as error:
        print(f"ERROR: {error}")
        return
    CURRENT_LINE = line_number
    _print_window(path, CURRENT_LINE, _current_window)


def scroll_down() -> None:
    """Move the window of the open file down by one window."""
    global CURRENT_LINE
    path = _open_path()
    if path is None:
        return
    CURRENT_LINE = min(max(_line_count(path), 1), CURRENT_LINE + _current_window)
    _print_window(path, CURRENT_LINE, _current_window)


def scroll_up() -> None:
    """Move the window of the open file up by one window."""
    global CURRENT_LINE
    path = _open_path()
    if path is None:
        return
    CURRENT_LINE = max(1, CURRENT_LINE - _current_window)
    _print_window(path, CURRENT_LINE, _current_window)


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
        print(f"ERROR: Directory {dir_path} not found.")
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
        print(
            f'More than {MAX_MATCHED_FILES} files matched for "{search_term}" in {dir_path}. '
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
        print("ERROR: No file given and no file is open.")
        return
    if not os.path.isfile(path):
        print(f"ERROR: File {path} not found.")
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
    """Find files named `file_name` (shell patterns like `*.py` work) under `dir_path`.

    Args:
        file_name: the name or pattern to look for.
        dir_path: the directory to search (default: the current directory).
    """
    if not os.path.isdir(dir_path):
        print(f"ERROR: Directory {dir_path} not found.")
        return
    found = [
        os.path.join(root, name)
        for root, _dirs, files in os.walk(dir_path)
        for name in sorted(files)
        if fnmatch.fnmatch(name, file_name)
    ]
    if not found:
        print(f'[No matches found for "{file_name}" in {dir_path}]')
        return
    print(f'[Found {len(found)} matches for "{file_name}" in {dir_path}]')
    for path in found:
        print(path)
    print(f'[End of matches for "{file_name}" in {dir_path}]')
