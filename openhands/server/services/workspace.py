"""Workspace files and git state through the conversation's runtime (server-api §6.4).

Every runtime call is blocking, so each one runs in a worker thread. Failures become the
route's spec'd error bodies here. The runtime is typed by what is called on it
(:class:`WorkspaceAccess`); a sandbox that refuses a path raises :class:`WorkspaceRefused`,
answered as that refusal's 4xx, while any other exception is a failure (500).

Every user-given path is confined to the workspace: refused with 400 when it is absolute,
climbs out with ``..`` or is malformed (checked here, for every runtime), and when it
resolves out through a symlink (checked by the action server, where the files are: its
``/list_files`` refuses a relative path that leads out of its working dir, so a listing
doubles as that check for single files).
"""

from __future__ import annotations

import asyncio
import os
import posixpath
import shutil
import tempfile
from collections.abc import Iterable

from openhands.core.config import OpenHandsConfig
from openhands.events.action import FileReadAction
from openhands.events.observation import ErrorObservation, FileReadObservation
from openhands.runtime.utils.files import (
    ERROR_BINARY_FILE,
    PathRefusedError,
    check_file_name,
    is_within,
    relative_inside,
)
from openhands.runtime.workspace_access import WorkspaceAccess, WorkspaceRefused
from openhands.server.errors import ErrorBodyError
from openhands.server.models.files import GitChange, GitDiff, SkippedFile, UploadResult

# Entries the workspace listing leaves out (the reference's `file_config.FILES_TO_IGNORE`).
FILES_TO_IGNORE = [".git/", ".DS_Store", "node_modules/", "__pycache__/", "lost+found/", ".vscode/"]
IGNORED_ENTRIES = frozenset(FILES_TO_IGNORE)


def _require(runtime: WorkspaceAccess | None) -> WorkspaceAccess:
    if runtime is None:
        raise ErrorBodyError("Runtime not yet initialized", 404)
    return runtime


def _relative(path: str, workspace: str) -> str:
    """The workspace-relative form of a user-given path, or 400. An absolute path is taken
    only when it names something under the workspace."""
    if path.startswith("/"):
        normal = posixpath.normpath(path)
        if is_within(posixpath.normpath(workspace), normal):
            path = posixpath.relpath(normal, workspace)
    try:
        return relative_inside(path)
    except PathRefusedError as error:
        raise ErrorBodyError(str(error), 400) from None


def _refused(refusal: WorkspaceRefused) -> ErrorBodyError:
    """The sandbox's refusal (a path it will not touch) as this route's answer."""
    return ErrorBodyError(refusal.message, refusal.status)


async def _confine(runtime: WorkspaceAccess, relative: str) -> None:
    """400 unless ``relative`` resolves inside the workspace in the sandbox itself. A runtime
    that lists on its own (no action server) and raises for a file or a missing path gave no
    refusal; any other failure refuses too (500)."""
    try:
        await asyncio.to_thread(runtime.list_files, relative)
    except (NotADirectoryError, FileNotFoundError):
        return
    except WorkspaceRefused as refusal:
        raise _refused(refusal) from None
    except Exception as error:
        raise ErrorBodyError(f"Error checking path: {error}") from error


def filter_entries(entries: Iterable[str], gitignore: str | None) -> list[str]:
    """Drop the always-ignored names and the `.gitignore` matches. Pure."""
    kept = [entry for entry in entries if entry not in IGNORED_ENTRIES]
    if gitignore:
        from pathspec import PathSpec  # not needed at start-up

        spec = PathSpec.from_lines("gitignore", gitignore.splitlines())
        kept = [entry for entry in kept if not spec.match_file(entry)]
    return kept


def _read_text(runtime: WorkspaceAccess, path: str) -> str | None:
    observation = runtime.read(FileReadAction(path=path))
    return observation.content if isinstance(observation, FileReadObservation) else None


async def list_files(
    runtime: WorkspaceAccess | None, workspace: str, path: str | None
) -> list[str]:
    runtime = _require(runtime)
    relative = _relative(path, workspace) if path else ""
    try:
        entries = await asyncio.to_thread(runtime.list_files, relative or None)
    except WorkspaceRefused as refusal:
        raise _refused(refusal) from refusal
    except Exception as error:
        raise ErrorBodyError(f"Error listing files: {error}") from error
    if path:
        entries = [posixpath.join(path, entry) for entry in entries]
    try:
        gitignore = await asyncio.to_thread(
            _read_text, runtime, posixpath.join(workspace, ".gitignore")
        )
    except Exception:
        gitignore = None
    return filter_entries(entries, gitignore)


async def select_file(runtime: WorkspaceAccess | None, workspace: str, file: str) -> str:
    runtime = _require(runtime)
    relative = _relative(file, workspace)
    full_path = posixpath.join(workspace, relative)
    if not relative:
        raise ErrorBodyError(f"Error opening file: {full_path} is a directory", 400)
    await _confine(runtime, relative)
    try:
        observation = await asyncio.to_thread(runtime.read, FileReadAction(path=full_path))
    except Exception as error:
        raise ErrorBodyError(f"Error opening file: {error}") from error
    if isinstance(observation, FileReadObservation):
        return observation.content
    if isinstance(observation, ErrorObservation) and ERROR_BINARY_FILE in observation.content:
        raise ErrorBodyError(f"Unable to open binary file: {full_path}", 415)
    if isinstance(observation, ErrorObservation) and "File not found" in observation.content:
        # 0.59 answers 500 here; a missing file is the caller's mistake, not the server's.
        raise ErrorBodyError(f"Error opening file: File not found: {full_path}", 404)
    raise ErrorBodyError(f"Error opening file: {observation}")


def extension_allowed(name: str, allowed: Iterable[str], restrict: bool = True) -> bool:
    """Whether uploads may have ``name``'s extension: any when not restricted or when
    ``.*`` is allowed; otherwise the lower-cased extension must be listed."""
    allowed = list(allowed)
    if not restrict or ".*" in allowed:
        return True
    return os.path.splitext(name)[1].lower() in [ext.lower() for ext in allowed]


def _upload_refusal(name: str, size: int, config: OpenHandsConfig) -> str | None:
    if not name or name != os.path.basename(name) or name in (".", ".."):
        return "Invalid file name"
    try:
        check_file_name(name)
    except PathRefusedError as error:
        return str(error)
    limit_mb = config.file_uploads_max_file_size_mb
    if limit_mb and size > limit_mb * 1024 * 1024:
        return f"File size exceeds the limit of {limit_mb}MB"
    if not extension_allowed(
        name, config.file_uploads_allowed_extensions, config.file_uploads_restrict_file_types
    ):
        return "Invalid file type"
    return None


async def upload_files(
    runtime: WorkspaceAccess | None,
    workspace: str,
    files: list[tuple[str, bytes]],
    config: OpenHandsConfig,
) -> UploadResult:
    """Write each upload into the workspace, bytes unchanged; 400 when none could be."""
    runtime = _require(runtime)
    uploaded: list[str] = []
    skipped: list[SkippedFile] = []
    status = 400  # every file refused for what it is; 500 once the sandbox failed on one
    with tempfile.TemporaryDirectory(prefix="oh-upload-") as staging:
        for name, content in files:
            reason = _upload_refusal(name, len(content), config)
            if reason is not None:
                skipped.append(SkippedFile(name=name, reason=reason))
                continue
            local = os.path.join(staging, name)
            with open(local, "wb") as handle:
                handle.write(content)
            try:
                await asyncio.to_thread(runtime.copy_to, local, workspace)
            except WorkspaceRefused as refusal:
                skipped.append(SkippedFile(name=name, reason=f"Failed to upload: {refusal}"))
                continue
            except Exception as error:
                status = 500
                skipped.append(SkippedFile(name=name, reason=f"Failed to upload: {error}"))
                continue
            uploaded.append(posixpath.join(workspace, name))
    result = UploadResult(uploaded_files=uploaded, skipped_files=skipped)
    if skipped and not uploaded:
        reasons = "; ".join(f"{_short(file.name)}: {file.reason}" for file in skipped)
        raise ErrorBodyError(f"No file was uploaded. {reasons}", status, **result.model_dump())
    return result


def _short(name: str, limit: int = 60) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


async def zip_workspace(runtime: WorkspaceAccess | None, workspace: str) -> str:
    """A local zip of the workspace; the caller deletes it after sending."""
    runtime = _require(runtime)
    try:
        path = await asyncio.to_thread(runtime.copy_from, workspace)
    except Exception as error:
        raise ErrorBodyError(f"Error zipping workspace: {error}") from error
    return str(path)


async def git_changes(runtime: WorkspaceAccess | None, workspace: str) -> list[GitChange]:
    runtime = _require(runtime)
    try:
        changes = await asyncio.to_thread(runtime.get_git_changes, workspace)
    except Exception as error:
        raise ErrorBodyError(f"Error getting changes: {error}") from error
    if changes is None:
        raise ErrorBodyError("Not a git repository", 404)
    return [GitChange.model_validate(change) for change in changes]


async def git_diff(runtime: WorkspaceAccess | None, workspace: str, path: str) -> GitDiff:
    runtime = _require(runtime)
    relative = _relative(path, workspace)
    if not relative:
        raise ErrorBodyError("Error getting diff: a file path is needed", 400)
    await _confine(runtime, relative)
    full_path = posixpath.join(workspace, relative)
    try:
        diff = await asyncio.to_thread(runtime.get_git_diff, full_path, workspace)
    except Exception as error:
        raise ErrorBodyError(f"Error getting diff: {error}") from error
    return GitDiff.model_validate(diff)


def remove_file(path: str) -> None:
    try:
        if os.path.isdir(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    except OSError:
        pass
