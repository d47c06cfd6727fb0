"""Applying one file's parsed diff to its text."""

from __future__ import annotations

import os
import subprocess
import tempfile

from openhands.resolver.patching.exceptions import HunkApplyException, SubprocessException
from openhands.resolver.patching.patch import Change, diffobj, split_lines
from openhands.resolver.patching.snippets import which


def _same_ignoring_whitespace_runs(expected: str, actual: str) -> bool:
    # Agents often get indentation of context lines slightly wrong; a difference only in
    # the amount of whitespace is not a reason to reject the hunk.
    return expected.split() == actual.split()


def _check_context(changes: list[Change], lines: list[str]) -> None:
    for old, _new, line, hunk in changes:
        if old is None or line is None:
            continue
        if old > len(lines):
            raise HunkApplyException(f'context line {old}, "{line}" does not exist in source', hunk)
        source = lines[old - 1]
        if source != line and not _same_ignoring_whitespace_runs(line, source):
            raise HunkApplyException(
                f'context line {old}, "{line}" does not match "{source}"', hunk
            )


def _apply_with_patch_program(diff: diffobj, lines: list[str], reverse: bool) -> list[str]:
    program = which("patch")
    if program is None:
        raise SubprocessException("cannot find patch program", code=-1)
    with tempfile.TemporaryDirectory(prefix="openhands-patch-") as workdir:
        source = os.path.join(workdir, "source")
        result = os.path.join(workdir, "result")
        patch_file = os.path.join(workdir, "diff.patch")
        with open(source, "w", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
        with open(patch_file, "w", encoding="utf-8") as out:
            out.write(diff.text)
        completed = subprocess.run(
            [
                program,
                "--reverse" if reverse else "--forward",
                "--quiet",
                "-o",
                result,
                "-i",
                patch_file,
                "-r",
                os.path.join(workdir, "rejects"),
                source,
            ],
            capture_output=True,
            check=False,
        )
        if completed.returncode != 0:
            raise SubprocessException("patch program failed", code=completed.returncode)
        with open(result, encoding="utf-8") as patched:
            return split_lines(patched.read())


def apply_diff(
    diff: diffobj, text: str | list[str], reverse: bool = False, use_patch: bool = False
) -> list[str]:
    """The lines of ``text`` after applying ``diff`` (``reverse`` undoes it instead).

    Every line the diff expects to find is checked first, so a mismatch raises
    ``HunkApplyException`` before anything changes. ``use_patch`` delegates to the
    ``patch`` program.
    """
    lines = split_lines(text) if isinstance(text, str) else list(text)
    if use_patch:
        return _apply_with_patch_program(diff, lines, reverse)

    changes = list(diff.changes or [])
    if reverse:
        changes = [change._replace(old=change.new, new=change.old) for change in changes]
    _check_context(changes, lines)

    removed = inserted = 0
    for old, new, line, _hunk in changes:
        if old is not None and new is None:
            # ``old`` numbers the original text; shift it by what was already removed
            # and inserted above it.
            del lines[old - 1 - removed + inserted]
            removed += 1
        elif old is None and new is not None:
            lines.insert(new - 1, line or "")
            inserted += 1
    return lines
