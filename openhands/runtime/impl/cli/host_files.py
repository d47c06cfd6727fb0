"""File transfer of the CLI runtime (cli.md §13.5): the "sandbox" is a host directory.

The caller confines every destination to the workspace (``Confine``); copies re-check each
file they write, so a symlink already in the workspace cannot redirect a copy outside.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from openhands.runtime.server.file_transfer import zip_path

# Maps a path to its real location inside the workspace, or raises PermissionError.
Confine = Callable[[str], str]


def copy_into_workspace(
    host_src: str, dest: str, recursive: bool, confine: Confine, dest_is_dir: bool = False
) -> None:
    """Copy ``host_src`` to the (confined) ``dest``.

    A directory (``recursive``) lands in ``dest/<its name>``, merged with what is there.
    A file goes into ``dest`` when that is a directory (or ``dest_is_dir``: the caller's
    path ended with ``/``), into a new directory ``dest`` when it does not exist and its
    name has no ``.``, else to the file path ``dest``.
    """
    if not os.path.exists(host_src):
        raise FileNotFoundError(f"Source file {host_src} does not exist")
    try:
        if os.path.isdir(host_src):
            if not recursive:
                raise IsADirectoryError(f"{host_src} is a directory: copy it with recursive=True")
            target = os.path.join(dest, os.path.basename(os.path.normpath(host_src)))
            shutil.copytree(
                host_src,
                confine(target),
                copy_function=lambda src, dst: _checked_copy(src, dst, confine),
                dirs_exist_ok=True,
            )
        else:
            _checked_copy(host_src, _file_target(host_src, dest, dest_is_dir), confine)
    except shutil.SameFileError:
        return
    except OSError as exc:  # shutil.Error (copytree) and refused targets included
        raise RuntimeError(f"Error copying {host_src} to {dest}: {exc}") from exc


def _file_target(host_src: str, dest: str, dest_is_dir: bool) -> str:
    name = os.path.basename(host_src)
    if os.path.isdir(dest):
        return os.path.join(dest, name)
    if dest_is_dir or (not os.path.exists(dest) and "." not in os.path.basename(dest)):
        os.makedirs(dest, exist_ok=True)
        return os.path.join(dest, name)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    return dest


def _checked_copy(src: str, dst: str, confine: Confine) -> str:
    return str(shutil.copy2(src, confine(dst)))


def list_entries(path: str) -> list[str]:
    """Full paths of the entries of directory ``path``, sorted; a file lists itself."""
    if os.path.isfile(path):
        return [path]
    try:
        names = os.listdir(path)
    except OSError:  # missing, not a directory, unreadable
        return []
    return [os.path.join(path, name) for name in sorted(names)]


def zip_to_temp(path: str) -> Path:
    """A new temporary zip of the file or directory ``path`` (names relative to it)."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"File not found: {path}")
    return Path(zip_path(path))
