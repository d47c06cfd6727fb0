"""Files in and out of the sandbox: upload, download as zip, list (runtime.md §3.4).

Quirks Q6/Q7 are fixed here: bad input answers 400/404 (not 500), and downloading a single
file gives a zip that holds it.

Nothing here writes or packs through a symlink that leaves the directory being worked on:
an upload replaces a symlink (or hard link) of its name instead of writing through it, zip
members are confined to the destination after every symlink is resolved (links they create
must stay inside, and are made last), a download stores in-tree links as links and skips the
ones that lead out, and a relative listing must resolve inside the working dir.
"""

from __future__ import annotations

import os
import posixpath
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path
from typing import IO, BinaryIO

from openhands.runtime.utils.files import (
    PathRefusedError,
    check_file_name,
    check_path_text,
    is_within,
    resolve_inside,
)


class TransferError(Exception):
    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail


def save_upload(filename: str, data: BinaryIO, destination: str, recursive: bool) -> None:
    if not os.path.isabs(destination):
        raise TransferError(400, "Destination must be an absolute path")
    name = os.path.basename(filename)
    try:
        check_path_text(destination)
        check_file_name(name)
    except PathRefusedError as exc:
        raise TransferError(400, str(exc)) from None
    is_zip = name.endswith(".zip")
    if recursive and not is_zip:
        raise TransferError(400, "Recursive uploads must be zip archives")
    try:
        os.makedirs(destination, exist_ok=True)
    except OSError as exc:
        raise TransferError(400, f"Cannot create the destination: {exc.strerror}") from None
    root = os.path.realpath(destination)
    if not os.path.isdir(root):
        raise TransferError(400, "Destination is not a directory")
    if not is_zip:
        write_no_follow(os.path.join(root, name), data)
        return
    # The archive itself never lands in the destination: a member could be named like it.
    with tempfile.TemporaryFile() as spool:
        shutil.copyfileobj(data, spool)
        spool.seek(0)
        extract_zip(spool, root)


def write_no_follow(path: str, data: IO[bytes]) -> None:
    """Write ``data`` to ``path``. A symlink there is replaced (never written through), and so
    is a file with other hard links; directories and special files are refused."""
    try:
        info: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise TransferError(400, f"{os.path.basename(path)} is a directory")
        if stat.S_ISLNK(info.st_mode) or (stat.S_ISREG(info.st_mode) and info.st_nlink > 1):
            os.unlink(path)
        elif not stat.S_ISREG(info.st_mode):
            raise TransferError(400, f"{os.path.basename(path)} is not a regular file")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666)
    except OSError as exc:  # ELOOP: a link appeared in between; ENAMETOOLONG, EACCES, …
        raise TransferError(400, f"Cannot write {os.path.basename(path)}: {exc.strerror}") from None
    with os.fdopen(fd, "wb") as out:
        shutil.copyfileobj(data, out)


# --- zip upload ---------------------------------------------------------------------------


def _member_path(info: zipfile.ZipInfo) -> str:
    """The member's name as a clean relative path, or 400 for absolute names and ``..``."""
    name = info.filename
    try:
        check_path_text(name)
    except PathRefusedError as exc:
        raise TransferError(400, f"Zip member {name!r}: {exc}") from None
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if name.startswith("/") or ".." in parts:
        raise TransferError(400, f"Zip member {name!r} would be written outside the destination")
    return "/".join(parts)


def _is_link(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def _directory_inside(root: str, relative: str) -> str:
    """The real directory ``root/relative``, made where missing; 400 if any existing component
    is a symlink that leads out of ``root`` or is not a directory."""
    current = root
    for part in [p for p in relative.split("/") if p]:
        step = os.path.join(current, part)
        if os.path.islink(step):
            step = os.path.realpath(step)
            if not is_within(root, step):
                raise TransferError(400, f"{relative!r} goes through a link out of the destination")
        if not os.path.lexists(step):
            os.mkdir(step)
        elif not os.path.isdir(step):
            raise TransferError(400, f"{relative!r}: {part} is not a directory")
        current = step
    return current


def _make_link(root: str, relative: str, target: str) -> str:
    """Create the symlink ``relative`` -> ``target`` if it resolves inside ``root``."""
    if os.path.isabs(target):
        raise TransferError(400, f"Zip member {relative!r} is a link to an absolute path")
    parent = _directory_inside(root, posixpath.dirname(relative))
    location = os.path.join(parent, posixpath.basename(relative))
    if not is_within(root, os.path.realpath(os.path.join(parent, target))):
        raise TransferError(400, f"Zip member {relative!r} is a link out of the destination")
    if os.path.isdir(location) and not os.path.islink(location):
        raise TransferError(400, f"Zip member {relative!r} would replace a directory")
    if os.path.lexists(location):
        os.unlink(location)
    os.symlink(target, location)
    return location


def extract_zip(archive_file: IO[bytes], root: str) -> None:
    """Unpack into the real directory ``root``. Every name is checked before anything is
    written; links are made after all files, and the whole archive is refused (its links
    removed) if any link it made resolves out of ``root`` in the end."""
    try:
        archive = zipfile.ZipFile(archive_file)
    except zipfile.BadZipFile as exc:
        raise TransferError(400, f"Invalid zip file: {exc}") from None
    with archive:
        members = [(_member_path(info), info) for info in archive.infolist()]
        links: list[tuple[str, str]] = []
        for relative, info in members:
            if not relative:
                continue
            if _is_link(info):
                target = archive.read(info).decode("utf-8", "surrogateescape")
                try:
                    check_path_text(target)
                except PathRefusedError as exc:
                    raise TransferError(400, f"Zip member {relative!r}: {exc}") from None
                links.append((relative, target))
            elif info.is_dir():
                _directory_inside(root, relative)
            else:
                parent = _directory_inside(root, posixpath.dirname(relative))
                with archive.open(info) as source:
                    write_no_follow(os.path.join(parent, posixpath.basename(relative)), source)
        made: list[str] = []
        try:
            for relative, target in links:
                made.append(_make_link(root, relative, target))
            for location in made:
                if not is_within(root, os.path.realpath(location)):
                    raise TransferError(400, "The archive's links lead out of the destination")
        except TransferError:
            for location in made:
                if os.path.islink(location):
                    os.unlink(location)
            raise


# --- download -----------------------------------------------------------------------------


def _add_link(archive: zipfile.ZipFile, root: str, directory: str, name: str, arcname: str) -> None:
    """Store an in-tree symlink as a link (relative text); skip one that leads out."""
    resolved = os.path.realpath(os.path.join(directory, name))
    if not is_within(root, resolved):
        return
    info = zipfile.ZipInfo(arcname)
    info.create_system = 3  # unix: the mode bits below mean what they say
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive.writestr(info, os.path.relpath(resolved, directory))


def zip_path(path: str) -> str:
    """A temporary zip of ``path`` (a directory's files relative to it, or the single file)."""
    if not os.path.isabs(path):
        raise TransferError(400, "Path must be absolute")
    try:
        check_path_text(path)
    except PathRefusedError as exc:
        raise TransferError(400, str(exc)) from None
    if not os.path.exists(path):
        raise TransferError(404, "File not found")
    root = os.path.realpath(path)
    handle, zip_file = tempfile.mkstemp(suffix=".zip")
    os.close(handle)
    with zipfile.ZipFile(zip_file, "w", zipfile.ZIP_DEFLATED) as archive:
        if os.path.isfile(root):
            archive.write(root, os.path.basename(path))
            return zip_file
        # os.walk does not enter linked directories; links are stored, never followed.
        for directory, dirs, files in os.walk(root):
            for name in sorted(dirs + files):
                full = os.path.join(directory, name)
                arcname = os.path.relpath(full, root)
                if os.path.islink(full):
                    _add_link(archive, root, directory, name, arcname)
                elif name in files and os.path.isfile(full):  # no FIFOs, sockets, devices
                    archive.write(full, arcname)
    return zip_file


# --- listing ------------------------------------------------------------------------------


def list_directory(path: str | None, working_dir: str) -> list[str]:
    """Entries directly inside ``path``: directories (with "/") first, each group sorted
    case-insensitively, hidden entries included; a missing path gives [].

    A relative ``path`` must resolve (symlinks followed) inside ``working_dir``: else 400."""
    try:
        if path and not os.path.isabs(path):
            target = Path(resolve_inside(working_dir, path))
        else:
            if path:
                check_path_text(path)
            target = Path(path or working_dir)
    except PathRefusedError as exc:
        raise TransferError(400, str(exc)) from None
    try:
        if not target.is_dir():
            return []
        dirs: list[str] = []
        files: list[str] = []
        for entry in target.iterdir():
            (dirs if entry.is_dir() else files).append(entry.name)
        dirs.sort(key=str.lower)
        files.sort(key=str.lower)
        return [d + "/" for d in dirs] + files
    except OSError:
        return []
