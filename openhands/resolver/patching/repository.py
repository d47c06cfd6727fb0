"""Applying a whole ``git diff`` to a checked-out repository.

The patch is applied in two passes: every file's new content is computed first (reading
through an overlay of the earlier files' results), and only when all hunks apply are the
files deleted, moved and written. A patch that does not apply leaves the tree untouched.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field

from openhands.core.logger import openhands_logger as logger
from openhands.resolver.patching.apply import apply_diff
from openhands.resolver.patching.patch import parse_patch

DEV_NULL = "/dev/null"


class PatchPathError(ValueError):
    """The patch names a file outside the repository."""


@dataclass
class _Delete:
    path: str


@dataclass
class _Move:
    source: str
    target: str


@dataclass
class _Write:
    path: str
    content: bytes


@dataclass
class _Plan:
    """The file operations a patch amounts to, and the tree as they leave it."""

    repo_dir: str
    operations: list[_Delete | _Move | _Write] = field(default_factory=list)
    # Files already touched by the plan: their planned content, None when removed.
    overlay: dict[str, bytes | None] = field(default_factory=dict)

    def read(self, path: str) -> bytes:
        if path in self.overlay:
            content = self.overlay[path]
            if content is None:
                raise FileNotFoundError(f"The patch changes {path}, which it already removed.")
            return content
        with open(path, "rb") as source:
            return source.read()

    def delete(self, path: str) -> None:
        self.operations.append(_Delete(path))
        self.overlay[path] = None

    def move(self, source: str, target: str) -> None:
        self.overlay[target] = self.read(source)
        self.overlay[source] = None
        self.operations.append(_Move(source, target))

    def write(self, path: str, content: bytes) -> None:
        self.operations.append(_Write(path, content))
        self.overlay[path] = content


def _repo_path(repo_dir: str, patch_path: str) -> str:
    """``patch_path`` (git's ``a/``/``b/`` prefix removed) inside ``repo_dir``; a path
    that would leave the repository is refused."""
    relative = patch_path.removeprefix("a/").removeprefix("b/")
    root = os.path.realpath(repo_dir)
    resolved = os.path.realpath(os.path.join(root, relative))
    if os.path.isabs(relative) or os.path.commonpath([root, resolved]) != root:
        raise PatchPathError(f"The patch touches {patch_path!r}, outside the repository.")
    return os.path.join(repo_dir, relative)


def _detect_newline(content: bytes) -> str | None:
    if b"\r\n" in content:
        return "\r\n"
    if b"\n" in content:
        return "\n"
    return None


def _split_file(content: bytes, newline: str | None, path: str) -> list[str]:
    """The file's lines as the reference reads them: split on ``newline`` and stripped of
    its characters (with no newline at all, of surrounding whitespace)."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as error:
        logger.error(f"Error reading file {path}: {error}")
        return []
    if newline is None:
        return [text.strip()] if text else []
    lines = text.split(newline)
    if lines and lines[-1] == "":
        lines.pop()
    return [line.strip(newline) for line in lines]


def _plan(repo_dir: str, patch: str) -> _Plan:
    plan = _Plan(repo_dir)
    # The reference treats every file of a patch that renames anything as a pure rename
    # (its hunks are skipped); kept so the same output.jsonl gives the same commit.
    has_rename = "rename from" in patch
    for diff in parse_patch(patch):
        if diff.header is None or not diff.header.new_path:
            logger.warning("Could not determine file to patch")
            continue
        old_header_path = diff.header.old_path
        old_path = (
            _repo_path(repo_dir, old_header_path)
            if old_header_path and old_header_path != DEV_NULL
            else None
        )
        if diff.header.new_path == DEV_NULL:
            if old_path is not None:
                plan.delete(old_path)
            continue
        new_path = _repo_path(repo_dir, diff.header.new_path)
        if old_path and has_rename:
            plan.move(old_path, new_path)
            continue

        if old_path:
            content = plan.read(old_path)
            newline = _detect_newline(content)
            lines = _split_file(content, newline, old_path)
        else:
            newline, lines = "\n", []
        if diff.changes is None:
            logger.warning(f"No changes to apply for {old_path}")
            continue
        new_lines = apply_diff(diff, lines)
        ending = newline or "\n"
        plan.write(new_path, "".join(line + ending for line in new_lines).encode("utf-8"))
    return plan


def _remove_empty_parents(path: str, repo_dir: str) -> None:
    directory = os.path.dirname(path)
    root = os.path.realpath(repo_dir)
    while directory and os.path.realpath(directory) != root and directory.startswith(repo_dir):
        try:
            os.rmdir(directory)
        except OSError:
            return  # not empty
        directory = os.path.dirname(directory)


def _execute(plan: _Plan) -> None:
    for operation in plan.operations:
        if isinstance(operation, _Delete):
            if os.path.lexists(operation.path):
                os.remove(operation.path)
                logger.info(f"Deleted file: {operation.path}")
        elif isinstance(operation, _Move):
            os.makedirs(os.path.dirname(operation.target) or ".", exist_ok=True)
            if os.path.abspath(operation.source) != os.path.abspath(operation.target):
                shutil.move(operation.source, operation.target)
                _remove_empty_parents(operation.source, plan.repo_dir)
        else:
            os.makedirs(os.path.dirname(operation.path) or ".", exist_ok=True)
            with open(operation.path, "wb") as target:
                target.write(operation.content)


def apply_patch(repo_dir: str, patch: str) -> None:
    """Apply ``patch`` (``git diff`` output) to the files under ``repo_dir``, keeping each
    file's line endings. Raises ``HunkApplyException`` (and changes nothing) when a hunk
    does not match, ``PatchPathError`` when a path leaves the repository."""
    _execute(_plan(repo_dir, patch))
    logger.info("Patch applied successfully")
