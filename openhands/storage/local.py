"""FileStore on the local disk, with crash-safe (atomic) writes by default."""

from __future__ import annotations

import builtins  # in the class bodies below, ``list`` is the method, not the type
import contextlib
import errno
import itertools
import logging
import os
import shutil

from openhands.storage.files import FileStore
from openhands.storage.placement import make_directories, spread_subdirectories

logger = logging.getLogger(__name__)

# Temporary files of in-flight atomic writes are named ``.<name>.<pid>-<n>.oh-tmp`` in the
# target's own directory (so ``os.replace`` never crosses a file system). ``list`` hides
# them: a process killed between creating one and renaming it leaves only such debris.
TEMP_SUFFIX = ".oh-tmp"
_temp_counter = itertools.count()

_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
_MAX_SINGLE_READ = 0x7FFFF000  # Linux returns at most this much from one read()
_PUBLIC_MODE = 0o666  # narrowed by the process umask, as open() does
_PRIVATE_MODE = 0o600
# Unnamed files (O_TMPFILE) are given their name through this path of their descriptor.
_PROC_FD = "/proc/self/fd/"
_TMPFILE_FLAGS = getattr(os, "O_TMPFILE", 0) | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
# What opening an unnamed file fails with where the file system or kernel has none.
_NO_UNNAMED_FILES = frozenset({errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL})


class LocalFileStore(FileStore):
    """Files under ``root`` on the local file system.

    ``atomic`` (default on): each write goes to a temporary file in the target directory,
    which then replaces the target in one ``os.replace``. A reader, or a process restarted
    after a crash at any instant, sees either the old or the new complete file, never a
    partial one. ``fsync`` additionally flushes the file and its directory to disk before
    returning; it is off by default because the event stream needs thousands of writes/s.
    """

    def __init__(self, root: str, *, atomic: bool = True, fsync: bool = False) -> None:
        if root.startswith("~"):
            root = os.path.expanduser(root)
        self.root = os.path.abspath(root)
        self.atomic = atomic
        self.fsync = fsync
        self._root_prefix = self.root.rstrip(os.sep) + os.sep
        # write_new's fast path; switched off for good when the file system refuses it.
        self._unnamed_files = hasattr(os, "O_TMPFILE") and os.path.isdir(_PROC_FD)
        os.makedirs(self.root, exist_ok=True)
        # New directories (a conversation's) are spread over fresh ext4 block groups, away
        # from inodes freed by recent deletions: see openhands/storage/placement.py.
        # Switched off for good when the file system refuses.
        self._spread_directories = spread_subdirectories(self.root)

    def _make_directories(self, directory: str) -> None:
        self._spread_directories = make_directories(directory, spread=self._spread_directories)

    def get_full_path(self, path: str) -> str:
        """Map a store path to an absolute path under the root (leading ``/`` stripped)."""
        relative = path.lstrip("/")
        full = self._root_prefix + relative
        if ".." in relative:
            normalized = os.path.normpath(full)
            if normalized != self.root and not normalized.startswith(self._root_prefix):
                raise ValueError(f"Path escapes the file store root: {path!r}")
        return full

    # --- write -----------------------------------------------------------------------

    def write(self, path: str, contents: str | bytes) -> None:
        self._write(self.get_full_path(path), contents, private=False)

    def write_private(self, path: str, contents: str | bytes) -> None:
        """Write a secrets file: created with mode 0600 (also its temporary file)."""
        self._write(self.get_full_path(path), contents, private=True)

    def _write(self, full_path: str, contents: str | bytes, *, private: bool) -> None:
        data = contents.encode("utf-8") if isinstance(contents, str) else contents
        if not self.atomic:
            self._write_file(full_path, data, private=private)
            return
        directory, _, name = full_path.rpartition("/")
        temp_path = f"{directory}/.{name}.{os.getpid()}-{next(_temp_counter)}{TEMP_SUFFIX}"
        try:
            self._write_file(temp_path, data, private=private)
            os.replace(temp_path, full_path)
        except BaseException:
            try:
                os.unlink(temp_path)
            except OSError:
                pass
            raise
        if self.fsync:
            _fsync_directory(directory)

    def _write_file(self, file_path: str, data: bytes, *, private: bool) -> None:
        mode = _PRIVATE_MODE if private else _PUBLIC_MODE
        try:
            fd = os.open(file_path, _WRITE_FLAGS, mode)
        except FileNotFoundError:
            # Parents are created only when missing: the common case (directory already
            # there) costs no extra system call, and a directory removed behind our back
            # is simply re-created.
            self._make_directories(os.path.dirname(file_path))
            fd = os.open(file_path, _WRITE_FLAGS, mode)
        try:
            if private:
                # The umask may have narrowed the mode and an existing file keeps its old
                # one; either way the result must be exactly owner read/write.
                os.fchmod(fd, _PRIVATE_MODE)
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)

    def write_atomic(self, path: str, contents: bytes, scratch: str) -> None:
        """Write ``scratch``, then rename it onto ``path``: atomic even on a store made with
        ``atomic=False``.

        Unlike ``write``, the temporary file is the caller's ``scratch`` path. The event
        stream keeps these in a directory of their own, so the (ever growing) events
        directory changes once per event, by the rename, instead of also by the create.
        """
        temp = self.get_full_path(scratch)
        target = self.get_full_path(path)
        try:
            fd = os.open(temp, _WRITE_FLAGS, _PUBLIC_MODE)
        except FileNotFoundError:
            # Checked only on failure: the common case (both directories there) costs no
            # extra system call.
            self._make_directories(os.path.dirname(temp))
            self._make_directories(os.path.dirname(target))
            fd = os.open(temp, _WRITE_FLAGS, _PUBLIC_MODE)
        try:
            self._write_all(fd, contents)
        finally:
            os.close(fd)
        os.replace(temp, target)
        if self.fsync:
            _fsync_directory(os.path.dirname(target))

    def write_new(self, path: str, contents: bytes) -> None:
        """Create ``path`` exclusively, complete or not at all (see ``FileStore.write_new``).

        On Linux the data goes into an unnamed file (``O_TMPFILE``) in the target directory,
        which ``linkat`` then names: the name appears with the whole contents behind it, a
        process killed before that leaves nothing (the kernel frees an unnamed file with its
        last descriptor), and ``linkat``, unlike ``rename``, refuses a name that exists.
        Elsewhere a hidden scratch file is hard-linked to the target and then removed.
        """
        target = self.get_full_path(path)
        try:
            self._create(target, contents)
        except FileNotFoundError:
            # Checked only on failure: the common case (directory there) costs nothing more.
            self._make_directories(os.path.dirname(target))
            self._create(target, contents)
        if self.fsync:
            _fsync_directory(os.path.dirname(target))

    def _create(self, target: str, data: bytes) -> None:
        if self._unnamed_files:
            try:
                fd = os.open(os.path.dirname(target), _TMPFILE_FLAGS, _PUBLIC_MODE)
            except OSError as error:
                if error.errno not in _NO_UNNAMED_FILES:
                    raise
                self._unnamed_files = False  # this file system has none: use the portable path
            else:
                try:
                    self._write_all(fd, data)
                    # ``src_dir_fd`` only makes Python call linkat (with AT_SYMLINK_FOLLOW)
                    # instead of link(); an absolute source path ignores it.
                    os.link(f"{_PROC_FD}{fd}", target, src_dir_fd=fd)
                finally:
                    os.close(fd)
                return
        directory, _, name = target.rpartition("/")
        temp = f"{directory}/.{name}.{os.getpid()}-{next(_temp_counter)}{TEMP_SUFFIX}"
        fd = os.open(temp, _WRITE_FLAGS, _PUBLIC_MODE)
        try:
            try:
                self._write_all(fd, data)
            finally:
                os.close(fd)
            try:
                os.link(temp, target)
            except (FileExistsError, FileNotFoundError):
                raise
            except OSError:
                # No hard links on this file system (FAT, some FUSE mounts): check, then
                # rename, which is exclusive against everything but a concurrent writer.
                if os.path.lexists(target):
                    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), target) from None
                os.replace(temp, target)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)

    def _write_all(self, fd: int, data: bytes) -> None:
        written = os.write(fd, data)
        while written < len(data):  # short writes: huge files, signals, full disks
            written += os.write(fd, memoryview(data)[written:])
        if self.fsync:
            os.fsync(fd)

    # --- read / list / delete ----------------------------------------------------------

    def read(self, path: str) -> str:
        return self.read_bytes(path).decode("utf-8")

    def read_bytes(self, path: str) -> bytes:
        # Plain system calls: one read sized from fstat and no file object. Event pages
        # are read by the hundred, and open()'s object setup costs more than the read.
        fd = os.open(self.get_full_path(path), _READ_FLAGS)
        try:
            want = os.fstat(fd).st_size + 1  # one byte more: a short read proves the end
            data = os.read(fd, want)
            if len(data) < min(want, _MAX_SINGLE_READ):
                return data
            chunks = [data]  # the file grew since fstat, or is larger than one read returns
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def list(self, path: str) -> list[str]:
        prefix = path if not path or path.endswith("/") else path + "/"
        entries: list[str] = []
        with os.scandir(self.get_full_path(path)) as children:
            for child in children:
                name = child.name
                if name.endswith(TEMP_SUFFIX) and name.startswith("."):
                    continue
                entries.append(f"{prefix}{name}/" if child.is_dir() else prefix + name)
        return entries

    def list_names(self, path: str) -> builtins.list[str]:
        names = os.listdir(self.get_full_path(path))
        # Scratch files are rare: one scan of the joined names (in C) instead of a check
        # per name, which would cost as much as the listing itself.
        if TEMP_SUFFIX in "\0".join(names):
            names = [n for n in names if not (n.startswith(".") and n.endswith(TEMP_SUFFIX))]
        return names

    def sequence_end(self, directory: str, suffix: str, start: int, max_gap: int) -> int:
        """Probes the numbers from ``start`` on, one ``stat`` each, instead of listing:
        the events directory grows without bound, the files after ``start`` are few."""
        prefix = self.get_full_path(directory)
        end = probe = start
        while probe - end < max_gap:
            if os.path.exists(f"{prefix}{probe}{suffix}"):
                end = probe + 1
            probe += 1
        return end

    def delete(self, path: str) -> None:
        full_path = self.get_full_path(path)
        try:
            if os.path.isdir(full_path) and not os.path.islink(full_path):
                shutil.rmtree(full_path)
            else:
                os.remove(full_path)
        except FileNotFoundError:
            pass
        except OSError as error:
            logger.error("Error deleting %s from the local file store: %s", path, error)


def _fsync_directory(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
