"""Parsing diff text into per-file ``diffobj`` records.

A ``Change`` is one line of a hunk: a removal ``(old, None, line, hunk)``, an insertion
``(None, new, line, hunk)`` or a context line ``(old, new, line, hunk)``; line numbers and
hunk indices are 1-based.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from openhands.resolver.patching.exceptions import ParseException
from openhands.resolver.patching.snippets import findall_regex, split_by_regex


class header(NamedTuple):
    index_path: str | None
    old_path: str | None
    old_version: str | int | None
    new_path: str | None
    new_version: str | int | None


class Change(NamedTuple):
    old: int | None
    new: int | None
    line: str | None
    hunk: int


class diffobj(NamedTuple):
    header: header | None
    changes: list[Change] | None
    text: str


Lines = list[str]

# A path followed by a timestamp or version, separated by a tab or a run of spaces.
_PATH_AND_STAMP = r"(.+?)(?:\t|  +)(.*)"

_DIFF_COMMAND = re.compile(r"^diff.* (.+) (.+)$")
_INDEX = re.compile(r"^Index: (.+)$")
_RCS_FILE = re.compile(r"^RCS file: (.+?)(?:,\w$|$)")
_UNIFIED_OLD = re.compile(rf"^--- {_PATH_AND_STAMP}$")
_UNIFIED_NEW = re.compile(rf"^\+\+\+ {_PATH_AND_STAMP}$")
_UNIFIED_HUNK = re.compile(r"^@@ -(\d+),?(\d*) \+(\d+),?(\d*) @@(.*)$")
_CONTEXT_OLD = re.compile(rf"^\*\*\* {_PATH_AND_STAMP}$")
_CONTEXT_NEW = re.compile(rf"^--- {_PATH_AND_STAMP}$")
_CONTEXT_HUNK = re.compile(r"^\*{15}$")
_CONTEXT_HUNK_OLD = re.compile(r"^\*\*\* (\d+),?(\d*) \*\*\*\*$")
_CONTEXT_HUNK_NEW = re.compile(r"^--- (\d+),?(\d*) ----$")
_CONTEXT_CHANGE = re.compile(r"^([-+ !]) (.*)$")
_NORMAL_HUNK = re.compile(r"^(\d+),?(\d*)([acd])(\d+),?(\d*)$")
_NORMAL_CHANGE = re.compile(r"^([<>]) (.*)$")

_GIT_COMMAND = re.compile(r"^diff --git a/(.+) b/(.+)$")
_GIT_INDEX = re.compile(r"^index ([a-f0-9]+)\.\.([a-f0-9]+) ?(\d*)$")
_GIT_OLD = re.compile(r"^--- (.+)$")
_GIT_NEW = re.compile(r"^\+\+\+ (.+)$")
_GIT_BINARY = re.compile(r"^Binary files (.+) and (.+) differ")
_SVN_REVISION = re.compile(r"\((?:working copy|revision (\d+))\)")
_GIT_NULL_VERSION = "0000000"

# Where one file's diff starts, tried in this order; the first that splits the text in
# more than one chunk is used.
_FILE_STARTS = (_INDEX, _DIFF_COMMAND, _RCS_FILE, _GIT_INDEX, _CONTEXT_OLD, _UNIFIED_OLD)


def split_lines(text: str | Lines) -> Lines:
    """``text`` as lines without their ``\\n`` or ``\\r\\n``. Only those end a line
    (unlike ``str.splitlines``, a form feed inside a line stays in it)."""
    if not isinstance(text, str):
        return [line[:-1] if line.endswith("\r") else line for line in text]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def parse_patch(text: str | Lines) -> Iterator[diffobj]:
    """One ``diffobj`` per file of a patch (a chunk with neither header nor changes is
    left out)."""
    lines = split_lines(text)
    chunks = [lines]
    for start in _FILE_STARTS:
        chunks = split_by_regex(lines, start)
        if len(chunks) > 1:
            break
    for chunk in chunks:
        file_header = parse_header(chunk)
        changes = parse_diff(chunk)
        if file_header is not None or changes is not None:
            yield diffobj(header=file_header, changes=changes, text="\n".join(chunk) + "\n")


# Headers


def parse_header(text: str | Lines) -> header | None:
    lines = split_lines(text)
    return parse_scm_header(lines) or parse_diff_header(lines)


def parse_scm_header(text: str | Lines) -> header | None:
    """The header of a git, svn or cvs diff, or None for a plain one."""
    lines = split_lines(text)
    if findall_regex(lines, _GIT_INDEX):
        return parse_git_header(lines)
    if findall_regex(lines, _RCS_FILE) or findall_regex(lines, _INDEX):
        return parse_svn_header(lines)
    return None


def parse_diff_header(text: str | Lines) -> header | None:
    """The header of a plain unified, context or ``diff`` command-line diff."""
    lines = split_lines(text)
    parsers: tuple[tuple[re.Pattern[str], Callable[[Lines], header | None]], ...] = (
        (_UNIFIED_NEW, parse_unified_header),
        (_CONTEXT_OLD, parse_context_header),
        (_DIFF_COMMAND, parse_diffcmd_header),
        (_GIT_NEW, parse_git_header),
    )
    for regex, parser in parsers:
        if findall_regex(lines, regex):
            return parser(lines)
    return None


def _strip_prefix(path: str | None, prefix: str) -> str | None:
    return path[len(prefix) :] if path and path.startswith(prefix) else path


def parse_git_header(text: str | Lines) -> header | None:
    """Paths from ``---``/``+++`` (or ``Binary files``), without git's ``a/``/``b/``;
    failing those, from the ``diff --git`` line, ``/dev/null`` for an all-zero version."""
    lines = split_lines(text)
    old_version = new_version = None
    old_path = new_path = None
    command_paths: tuple[str, str] | None = None
    for line in lines:
        if command := _GIT_COMMAND.match(line):
            command_paths = (command.group(1), command.group(2))
            continue
        if index := _GIT_INDEX.match(line):
            old_version, new_version = index.group(1), index.group(2)
            continue
        if old := _GIT_OLD.match(line):
            old_path = old.group(1)
        if new := _GIT_NEW.match(line):
            new_path = new.group(1)
        if binary := _GIT_BINARY.match(line):
            old_path, new_path = binary.group(1), binary.group(2)
        if old_path and new_path:
            return header(
                index_path=None,
                old_path=_strip_prefix(old_path, "a/"),
                old_version=old_version,
                new_path=_strip_prefix(new_path, "b/"),
                new_version=new_version,
            )
    if command_paths and old_version and new_version:
        return header(
            index_path=None,
            old_path="/dev/null" if old_version == _GIT_NULL_VERSION else command_paths[0],
            old_version=old_version,
            new_path="/dev/null" if new_version == _GIT_NULL_VERSION else command_paths[1],
            new_version=new_version,
        )
    return None


def _svn_version(path: str, version: str | int | None) -> tuple[str, int | None]:
    """Split svn's ``(revision N)`` / ``(working copy)`` marker off a path or version."""
    marker = version if isinstance(version, str) and version else None
    if marker is None and path.endswith(")") and "(" in path:
        cut = path.rindex("(")
        path, marker = path[:cut].rstrip(), path[cut:]
    revision = _SVN_REVISION.match(marker) if marker else None
    return path, int(revision.group(1)) if revision and revision.group(1) else None


def parse_svn_header(text: str | Lines) -> header | None:
    """``Index: <path>`` (or cvs's ``RCS file:``) followed by a plain diff header."""
    lines = split_lines(text)
    for position, line in enumerate(lines):
        index = _INDEX.match(line) or _RCS_FILE.match(line)
        if not index:
            continue
        index_path = index.group(1)
        inner = parse_diff_header(lines[position + 1 :])
        if inner is None or inner.old_path is None or inner.new_path is None:
            return header(index_path, index_path, None, index_path, None)
        old_path, old_version = _svn_version(inner.old_path, inner.old_version)
        new_path, new_version = _svn_version(inner.new_path, inner.new_version)
        return header(index_path, old_path, old_version, new_path, new_version)
    return None


def parse_diffcmd_header(text: str | Lines) -> header | None:
    """Paths from a ``diff [options] <old> <new>`` line, as written."""
    for line in split_lines(text):
        if command := _DIFF_COMMAND.match(line):
            return header(None, command.group(1), None, command.group(2), None)
    return None


def _paired_header(
    lines: Lines, old_regex: re.Pattern[str], new_regex: re.Pattern[str]
) -> header | None:
    for first, second in itertools.pairwise(lines):
        old = old_regex.match(first)
        new = new_regex.match(second) if old else None
        if old and new:
            return header(
                index_path=None,
                old_path=old.group(1),
                old_version=old.group(2) or None,
                new_path=new.group(1),
                new_version=new.group(2) or None,
            )
    return None


def parse_unified_header(text: str | Lines) -> header | None:
    return _paired_header(split_lines(text), _UNIFIED_OLD, _UNIFIED_NEW)


def parse_context_header(text: str | Lines) -> header | None:
    return _paired_header(split_lines(text), _CONTEXT_OLD, _CONTEXT_NEW)


# Hunks


def parse_diff(text: str | Lines) -> list[Change] | None:
    """The changes of one file's diff (unified, context or normal format), or None."""
    lines = split_lines(text)
    parsers: tuple[tuple[re.Pattern[str], Callable[[Lines], list[Change] | None]], ...] = (
        (_UNIFIED_HUNK, parse_unified_diff),
        (_CONTEXT_HUNK, parse_context_diff),
        (_NORMAL_HUNK, parse_default_diff),
    )
    for regex, parser in parsers:
        if findall_regex(lines, regex):
            return parser(lines)
    return None


def parse_unified_diff(text: str | Lines) -> list[Change] | None:
    """Unified hunks. A missing count means 1; an empty line is an empty context line (some
    tools strip the leading space); removals and insertions past the hunk's counts are
    dropped; any other line (``\\ No newline at end of file``) is ignored."""
    changes: list[Change] = []
    hunks = split_by_regex(split_lines(text), _UNIFIED_HUNK)
    for hunk_number, hunk in enumerate(hunks):
        start = _UNIFIED_HUNK.match(hunk[0]) if hunk else None
        if start is None:
            continue  # what precedes the first hunk
        old, new = int(start.group(1)), int(start.group(3))
        old_count = int(start.group(2)) if start.group(2) else 1
        new_count = int(start.group(4)) if start.group(4) else 1
        old_seen = new_seen = 0
        for line in hunk[1:]:
            kind, body = (line[0], line[1:]) if line else (" ", "")
            if kind == "-" and (old_seen != old_count or old_seen == 0):
                changes.append(Change(old + old_seen, None, body, hunk_number))
                old_seen += 1
            elif kind == "+" and (new_seen != new_count or new_seen == 0):
                changes.append(Change(None, new + new_seen, body, hunk_number))
                new_seen += 1
            elif kind == " ":
                changes.append(Change(old + old_seen, new + new_seen, body, hunk_number))
                old_seen += 1
                new_seen += 1
    return changes or None


def _context_section(lines: Lines, hunk_number: int, old: bool) -> list[tuple[str, str]]:
    section = []
    for line in lines:
        match = _CONTEXT_CHANGE.match(line)
        if match is None:
            if line.strip():
                raise ParseException("Context diff invalid", hunk_number)
            continue
        kind = match.group(1)
        if kind == ("+" if old else "-"):
            raise ParseException(f"Got unexpected change in removal hunk: {kind}", hunk_number)
        section.append((kind, match.group(2)))
    return section


def parse_context_diff(text: str | Lines) -> list[Change] | None:
    """Context-format hunks (``***************``, ``*** a,b ****``, ``--- c,d ----``).
    A section holding only context may be left out; it is then the other's context."""
    changes: list[Change] = []
    hunks = split_by_regex(split_lines(text), _CONTEXT_HUNK)
    for hunk_number, hunk in enumerate(hunks):
        if not hunk or not _CONTEXT_HUNK.match(hunk[0]):
            continue
        old_at = findall_regex(hunk, _CONTEXT_HUNK_OLD)
        new_at = findall_regex(hunk, _CONTEXT_HUNK_NEW)
        if not old_at or not new_at or new_at[0] < old_at[0]:
            raise ParseException("Context diff invalid", hunk_number)
        old_start_match = _CONTEXT_HUNK_OLD.match(hunk[old_at[0]])
        new_start_match = _CONTEXT_HUNK_NEW.match(hunk[new_at[0]])
        assert old_start_match and new_start_match
        old_section = _context_section(hunk[old_at[0] + 1 : new_at[0]], hunk_number, old=True)
        new_section = _context_section(hunk[new_at[0] + 1 :], hunk_number, old=False)
        if not old_section:
            old_section = [(kind, line) for kind, line in new_section if kind == " "]
        if not new_section:
            new_section = [(kind, line) for kind, line in old_section if kind == " "]
        # An empty file is "*** 0 ****": its first line number is 1 all the same.
        old = max(int(old_start_match.group(1)), 1)
        new = max(int(new_start_match.group(1)), 1)
        i = j = 0
        while i < len(old_section) or j < len(new_section):
            if i < len(old_section) and old_section[i][0] != " ":
                changes.append(Change(old, None, old_section[i][1], hunk_number))
                old += 1
                i += 1
            elif j < len(new_section) and new_section[j][0] != " ":
                changes.append(Change(None, new, new_section[j][1], hunk_number))
                new += 1
                j += 1
            elif i < len(old_section) and j < len(new_section):
                changes.append(Change(old, new, old_section[i][1], hunk_number))
                old += 1
                new += 1
                i += 1
                j += 1
            else:
                raise ParseException("Context diff invalid", hunk_number)
    return changes or None


def parse_default_diff(text: str | Lines) -> list[Change] | None:
    """Normal ``diff`` output: ``<range><a|c|d><range>`` then ``< old`` / ``> new`` lines."""
    changes: list[Change] = []
    hunks = split_by_regex(split_lines(text), _NORMAL_HUNK)
    for hunk_number, hunk in enumerate(hunks):
        start = _NORMAL_HUNK.match(hunk[0]) if hunk else None
        if start is None:
            continue
        old, new = int(start.group(1)), int(start.group(4))
        if start.group(3) == "a":
            old += 1  # "5a6": after old line 5
        for line in hunk[1:]:
            change = _NORMAL_CHANGE.match(line)
            if change is None:
                continue
            if change.group(1) == "<":
                changes.append(Change(old, None, change.group(2), hunk_number))
                old += 1
            else:
                changes.append(Change(None, new, change.group(2), hunk_number))
                new += 1
    return changes or None
