"""LocalFileStore asks ext4 to spread the directories it creates (chattr +T), so a new
conversation's event files do not land among recently freed inodes (issue 23)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from openhands.storage import local, placement
from openhands.storage.local import LocalFileStore
from openhands.storage.placement import FS_TOPDIR_FL, inode_flags, make_directories


def _flags_supported(directory: Path) -> bool:
    probe = directory / "probe"
    probe.mkdir()
    return placement.spread_subdirectories(str(probe))


def _flagged(path: Path) -> bool:
    return bool(inode_flags(str(path)) & FS_TOPDIR_FL)


def test_the_store_flags_its_root_and_every_directory_it_creates(tmp_path: Path) -> None:
    supported = _flags_supported(tmp_path)
    store = LocalFileStore(str(tmp_path / "store"))
    store.write("sessions/abc/events/0.json", "{}")
    store.write_new("sessions/abc/event_cache/0-25.json", b"[]")
    store.write_atomic("sessions/def/metadata.json", b"{}", "sessions/def/.scratch/m")
    created = [
        tmp_path / "store",
        tmp_path / "store" / "sessions",
        tmp_path / "store" / "sessions" / "abc",
        tmp_path / "store" / "sessions" / "abc" / "events",
        tmp_path / "store" / "sessions" / "abc" / "event_cache",
        tmp_path / "store" / "sessions" / "def",
        tmp_path / "store" / "sessions" / "def" / ".scratch",
    ]
    assert store._spread_directories is supported
    if supported:
        assert [p for p in created if not _flagged(p)] == []
    assert store.read("sessions/abc/events/0.json") == "{}"
    assert store.read("sessions/def/metadata.json") == "{}"


def test_a_file_system_that_refuses_is_asked_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def refuse(path: str) -> bool:
        calls.append(path)
        return False

    monkeypatch.setattr(placement, "spread_subdirectories", refuse)
    monkeypatch.setattr(local, "spread_subdirectories", refuse)
    store = LocalFileStore(str(tmp_path / "store"))
    assert store._spread_directories is False
    store.write("a/b/c/one.json", "1")
    store.write("d/e/two.json", "2")
    assert calls == [str(tmp_path / "store")]  # the root only; never again
    assert store.read("a/b/c/one.json") == "1" and store.read("d/e/two.json") == "2"


def test_make_directories_is_makedirs(tmp_path: Path) -> None:
    target = tmp_path / "x" / "y" / "z"
    assert make_directories(str(target), spread=False) is False
    assert target.is_dir()
    assert not _flagged(target) if _flags_supported(tmp_path) else target.is_dir()
    # Existing directories are fine, and a file in the way is an error as with makedirs.
    make_directories(str(target), spread=False)
    (tmp_path / "file").write_text("")
    with pytest.raises(OSError):
        make_directories(str(tmp_path / "file" / "sub"), spread=False)
    assert os.path.isfile(tmp_path / "file")
