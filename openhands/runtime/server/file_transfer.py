"""Files in and out of the sandbox: upload, download as zip, list (runtime.md §3.4).

Quirks Q6/Q7 are fixed here: bad input answers 400/404 (not 500), and downloading a single
file gives a zip that holds it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import BinaryIO


class TransferError(Exception):
    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail


def save_upload(filename: str, data: BinaryIO, destination: str, recursive: bool) -> None:
    if not os.path.isabs(destination):
        raise TransferError(400, "Destination must be an absolute path")
    name = os.path.basename(filename)
    if not name:
        raise TransferError(400, "Missing file name")
    is_zip = name.endswith(".zip")
    if recursive and not is_zip:
        raise TransferError(400, "Recursive uploads must be zip archives")
    os.makedirs(destination, exist_ok=True)
    target = os.path.join(destination, name)
    with open(target, "wb") as out:
        shutil.copyfileobj(data, out)
    if is_zip:
        try:
            with zipfile.ZipFile(target) as archive:
                archive.extractall(destination)
        except zipfile.BadZipFile as exc:
            raise TransferError(400, f"Invalid zip file: {exc}") from None
        finally:
            os.remove(target)


def zip_path(path: str) -> str:
    """A temporary zip of ``path`` (a directory's files relative to it, or the single file)."""
    if not os.path.isabs(path):
        raise TransferError(400, "Path must be absolute")
    if not os.path.exists(path):
        raise TransferError(404, "File not found")
    handle, zip_file = tempfile.mkstemp(suffix=".zip")
    os.close(handle)
    with zipfile.ZipFile(zip_file, "w", zipfile.ZIP_DEFLATED) as archive:
        if os.path.isfile(path):
            archive.write(path, os.path.basename(path))
        else:
            for root, _dirs, files in os.walk(path):
                for name in files:
                    full = os.path.join(root, name)
                    archive.write(full, os.path.relpath(full, path))
    return zip_file


def list_directory(path: str | None, working_dir: str) -> list[str]:
    """Entries directly inside ``path``: directories (with "/") first, each group sorted
    case-insensitively, hidden entries included; anything wrong gives []."""
    try:
        target = Path(working_dir if not path else os.path.join(working_dir, path))
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
