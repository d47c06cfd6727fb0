"""Where the file system puts a local store's new directories (issue 23).

A conversation writes one small file per event. On ext4 the inode of a new file is looked
for in its directory's block group, and when that group holds inodes freed in the last
minutes (deleted conversations, test runs, anything under the same parent), every create
first walks past them: creating a file then costs 150-300 µs instead of 5-10 µs, and
``add_event`` into a new conversation ran at 1.3-1.6k events/s instead of 10-20k.
bench/event_stream.py's docstring has the measurements and the kernel code involved.

ext4 places the subdirectories of a directory flagged "top of a hierarchy" (``chattr +T``)
as it places those of the root: in a block group with few directories and more free inodes
than average, so a new conversation's directories start in a group of their own, away from
what was just deleted. :class:`~openhands.storage.local.LocalFileStore` flags its root and
every directory it creates (the flag is not inherited). Setting it needs no privilege
beyond owning the directory; elsewhere (other file systems, tmpfs, overlays that refuse the
ioctl) it fails and nothing changes.
"""

from __future__ import annotations

import fcntl
import os
import struct

# <linux/fs.h>: the inode flags ioctls (they pass an int) and the "top directory" flag.
_FS_IOC_GETFLAGS = 0x80086601
_FS_IOC_SETFLAGS = 0x40086602
FS_TOPDIR_FL = 0x00020000


def inode_flags(path: str) -> int:
    """The directory's inode flags (``lsattr``); OSError where the file system has none."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        return int(struct.unpack("i", fcntl.ioctl(fd, _FS_IOC_GETFLAGS, b"\0" * 4))[0])
    finally:
        os.close(fd)


def spread_subdirectories(path: str) -> bool:
    """Flag ``path`` so ext4 spreads the directories created in it; False where that
    cannot be done (another file system, not the owner)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        (flags,) = struct.unpack("i", fcntl.ioctl(fd, _FS_IOC_GETFLAGS, b"\0" * 4))
        if not flags & FS_TOPDIR_FL:
            fcntl.ioctl(fd, _FS_IOC_SETFLAGS, struct.pack("i", flags | FS_TOPDIR_FL))
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def make_directories(path: str, *, spread: bool) -> bool:
    """``os.makedirs(path, exist_ok=True)``, flagging each directory it creates when
    ``spread`` is on. Returns whether flagging still works (False after a refusal, so the
    caller can stop trying)."""
    missing: list[str] = []
    current = path
    while current and not os.path.isdir(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory)
        except FileExistsError:
            if not os.path.isdir(directory):
                raise
            continue  # made meanwhile by another writer, who flags it
        if spread:
            spread = spread_subdirectories(directory)
    return spread
