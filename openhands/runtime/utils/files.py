"""Plain file reads and writes of the action server (runtime.md §5.1–5.2, ``impl_source=default``).

Quirks kept on purpose (spec §16): every written piece is followed by a newline (Q1), the binary
gate looks at the path as given, relative to the server's own cwd (Q2), and a read window that
starts at the last line also returns the line before it (Q3).
"""

from __future__ import annotations

import base64
import mimetypes
import os
import posixpath
from pathlib import Path

from binaryornot.check import is_binary

from openhands.events.action import FileReadAction, FileWriteAction
from openhands.events.observation import ErrorObservation, FileReadObservation, FileWriteObservation

ERROR_BINARY_FILE = "ERROR_BINARY_FILE"
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".gif")
VIDEO_EXTENSIONS = (".mp4", ".webm", ".ogg")
NEW_FILE_MODE = 0o664


def resolve_path(path: str, working_dir: str) -> str:
    """``path`` made absolute against the bash working directory."""
    return os.path.abspath(os.path.join(working_dir, path))


# --- confinement of user-given paths --------------------------------------------------------
#
# Every path a user (through the web routes) or a zip archive names is either resolved inside
# its root — after following every symlink — or refused with PathRefusedError. Lexical checks
# (``relative_inside``) run where the files cannot be seen (the web server of a Docker
# sandbox); ``resolve_inside`` runs where they can (the action server, a LocalRuntime host).

MAX_NAME_BYTES = 255  # one path component, as on ext4 and most other filesystems
MAX_PATH_BYTES = 4096  # PATH_MAX on Linux


class PathRefusedError(ValueError):
    """A user-given path that is malformed or leaves the directory it must stay in."""


def check_path_text(path: str) -> None:
    """Refuse NUL bytes, control characters and names longer than the filesystem allows."""
    if "\x00" in path:
        raise PathRefusedError("Invalid path: it contains a NUL byte")
    # C0, DEL and C1 controls: never part of a name a user types, and they break tools.
    if any(ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F for char in path):
        raise PathRefusedError("Invalid path: it contains control characters")
    if len(path.encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES:
        raise PathRefusedError(f"Invalid path: longer than {MAX_PATH_BYTES} bytes")
    for part in path.split("/"):
        if len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
            raise PathRefusedError(f"Invalid path: a name is longer than {MAX_NAME_BYTES} bytes")


def check_file_name(name: str) -> None:
    """A single directory entry name: not empty, not ``.``/``..``, no separators."""
    check_path_text(name)
    if not name or name in (".", "..") or "/" in name:
        raise PathRefusedError(f"Invalid file name: {name!r}")


def is_within(root: str, path: str) -> bool:
    """Whether absolute, normalised ``path`` is ``root`` or below it (no filesystem access)."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def relative_inside(path: str) -> str:
    """``path`` normalised as a relative path that cannot climb out of its root ("" for the
    root itself). Absolute paths and ``..`` chains that leave the root are refused. Purely
    lexical: symlinks are for ``resolve_inside`` to judge where the files are."""
    check_path_text(path)
    if path.startswith("/"):
        raise PathRefusedError("Invalid path: absolute paths are not allowed")
    normal = posixpath.normpath(path) if path else "."
    if normal == ".." or normal.startswith("../"):
        raise PathRefusedError("Invalid path: it leaves the workspace")
    return "" if normal == "." else normal


def resolve_inside(root: str, path: str) -> str:
    """``path`` (relative to ``root``, or absolute) with every symlink resolved, if the result
    is ``root`` (itself resolved) or lies below it; otherwise PathRefusedError."""
    check_path_text(path)
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, path))
    if not is_within(real_root, real):
        raise PathRefusedError("Invalid path: it leaves the workspace")
    return real


def is_binary_file(path: str) -> bool:
    """The binary gate. The path is checked as given, relative to the server process's cwd."""
    try:
        return os.path.isfile(path) and is_binary(path)
    except OSError:
        return False


def _data_url(path: str, default_mime: str) -> str:
    mime = mimetypes.guess_type(path)[0] or default_mime
    with open(path, "rb") as handle:
        encoded = base64.b64encode(handle.read()).decode("ascii")
    return f"data:{mime};base64,{encoded}"


def select_lines(lines: list[str], start: int, end: int) -> list[str]:
    """0-based, end-exclusive window; ``end=-1`` means to the end (see Q3 for the odd clamp)."""
    if end == -1:
        return lines[start:]
    n = len(lines)
    start = min(max(start, 0), n)
    end = min(max(end, 0), n)
    begin = max(0, min(start, n - 2))
    return lines[begin : max(end, begin + 1)]


def read_file(action: FileReadAction, working_dir: str) -> FileReadObservation | ErrorObservation:
    if is_binary_file(action.path):
        return ErrorObservation(ERROR_BINARY_FILE)
    path = resolve_path(action.path, working_dir)
    lower = path.lower()
    try:
        if lower.endswith(IMAGE_EXTENSIONS):
            return FileReadObservation(content=_data_url(path, "image/png"), path=path)
        if lower.endswith(".pdf"):
            return FileReadObservation(content=_data_url(path, "application/pdf"), path=path)
        if lower.endswith(VIDEO_EXTENSIONS):
            return FileReadObservation(content=_data_url(path, "video/mp4"), path=path)
        with open(path, encoding="utf-8") as handle:
            lines = handle.readlines()
    except FileNotFoundError:
        return ErrorObservation(
            f"File not found: {path}. Your current working directory is {working_dir}."
        )
    except UnicodeDecodeError:
        return ErrorObservation(f"File could not be decoded as utf-8: {path}.")
    except IsADirectoryError:
        return ErrorObservation(f"Path is a directory: {path}. You can only read files")
    content = "".join(select_lines(lines, action.start, action.end))
    return FileReadObservation(content=content, path=path)


def _make_parents(directory: Path, user_id: int) -> None:
    """Create missing directories, owned like the new file: the server runs as root, and a
    root-owned directory would lock the sandbox user out of what it just wrote."""
    missing: list[Path] = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for created in reversed(missing):
        created.mkdir(exist_ok=True)
        try:
            os.chown(created, user_id, user_id)
        except OSError:
            pass  # not root (LocalRuntime): the directory is ours already


def write_file(
    action: FileWriteAction, working_dir: str, user_id: int
) -> FileWriteObservation | ErrorObservation:
    """Write or splice ``action.content``; new files get mode 664 and ``user_id:user_id``."""
    path = resolve_path(action.path, working_dir)
    pieces = [piece + "\n" for piece in action.content.split("\n")]
    try:
        _make_parents(Path(path).parent, user_id)
        if not os.path.exists(path):
            with open(path, "w", encoding="utf-8") as handle:
                handle.writelines(pieces)
            try:
                os.chmod(path, NEW_FILE_MODE)
                os.chown(path, user_id, user_id)
            except OSError as exc:
                return ErrorObservation(
                    f"File {path} written, but failed to change ownership and permissions: {exc}"
                )
            return FileWriteObservation(content="", path=path)

        original = os.stat(path)
        with open(path, encoding="utf-8") as handle:
            lines = handle.readlines()
        head = lines[: action.start] if action.start else []
        tail = lines[action.end :] if action.end != -1 else []
        with open(path, "w", encoding="utf-8") as handle:
            handle.writelines(head + pieces + tail)
        try:
            os.chmod(path, original.st_mode & 0o7777)
            os.chown(path, original.st_uid, original.st_gid)
        except OSError as exc:
            return ErrorObservation(
                f"File {path} written, but failed to change ownership and permissions: {exc}"
            )
    except FileNotFoundError:
        return ErrorObservation(f"File not found: {path}")
    except IsADirectoryError:
        return ErrorObservation(f"Path is a directory: {path}. You can only write to files")
    except UnicodeDecodeError:
        return ErrorObservation(f"File could not be decoded as utf-8: {path}")
    return FileWriteObservation(content="", path=path)
