"""Default file reads and writes (runtime.md §5.1–5.2, quirks Q1–Q3)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from openhands.events.action import FileReadAction, FileWriteAction
from openhands.events.observation import ErrorObservation, FileReadObservation, FileWriteObservation
from openhands.runtime.utils.files import ERROR_BINARY_FILE, read_file, select_lines, write_file


def write(tmp_path: Path, path: str, content: str, **kwargs: int) -> object:
    return write_file(
        FileWriteAction(path=path, content=content, **kwargs), str(tmp_path), os.getuid()
    )


def test_write_relative_path_adds_newline_and_sets_mode(tmp_path: Path) -> None:
    obs = write(tmp_path, "hello.sh", 'echo "Hello, World!"')
    assert isinstance(obs, FileWriteObservation)
    assert obs.path == str(tmp_path / "hello.sh")
    assert obs.content == ""
    target = tmp_path / "hello.sh"
    assert target.read_text() == 'echo "Hello, World!"\n'
    info = target.stat()
    assert stat.S_IMODE(info.st_mode) == 0o664
    assert info.st_uid == os.getuid()


def test_trailing_newline_doubles(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "a\n")
    assert (tmp_path / "a.txt").read_text() == "a\n\n"


def test_write_creates_parent_directories(tmp_path: Path) -> None:
    write(tmp_path, "deep/er/f.txt", "x")
    assert (tmp_path / "deep" / "er" / "f.txt").read_text() == "x\n"


def test_write_splices_into_existing_file_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("1\n2\n3\n4\n")
    target.chmod(0o600)
    write(tmp_path, "f.txt", "two\nthree", start=1, end=3)
    assert target.read_text() == "1\ntwo\nthree\n4\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    write(tmp_path, "f.txt", "all")
    assert target.read_text() == "all\n"


def test_write_errors(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    obs = write(tmp_path, "dir", "x")
    assert isinstance(obs, ErrorObservation)
    assert obs.content == f"Path is a directory: {tmp_path / 'dir'}. You can only write to files"
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9\n")
    obs = write(tmp_path, "latin.txt", "x")
    assert obs.content == f"File could not be decoded as utf-8: {tmp_path / 'latin.txt'}"


def read(tmp_path: Path, path: str, **kwargs: int) -> FileReadObservation | ErrorObservation:
    return read_file(FileReadAction(path=path, **kwargs), str(tmp_path))


def test_read_back_what_was_written(tmp_path: Path) -> None:
    write(tmp_path, "hello.sh", 'echo "Hello, World!"')
    obs = read(tmp_path, "hello.sh")
    assert isinstance(obs, FileReadObservation)
    assert obs.content == 'echo "Hello, World!"\n'
    assert obs.path == str(tmp_path / "hello.sh")


def test_read_errors(tmp_path: Path) -> None:
    obs = read(tmp_path, "missing.txt")
    assert isinstance(obs, ErrorObservation)
    assert obs.content == (
        f"File not found: {tmp_path / 'missing.txt'}. Your current working directory is {tmp_path}."
    )
    (tmp_path / "d").mkdir()
    obs = read(tmp_path, "d")
    assert obs.content == f"Path is a directory: {tmp_path / 'd'}. You can only read files"


def test_binary_gate_comes_first(tmp_path: Path) -> None:
    blob = tmp_path / "picture.png"
    blob.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    obs = read(tmp_path, str(blob))
    assert isinstance(obs, ErrorObservation)
    assert obs.content == ERROR_BINARY_FILE


def test_text_image_becomes_data_url(tmp_path: Path) -> None:
    # An "image" that passes the binary gate (only such files reach this branch).
    (tmp_path / "fake.png").write_text("not really a png\n")
    obs = read(tmp_path, "fake.png")
    assert obs.content == "data:image/png;base64,bm90IHJlYWxseSBhIHBuZwo="


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        (0, -1, ["a", "b", "c", "d", "e"]),
        (2, -1, ["c", "d", "e"]),
        (1, 3, ["b", "c"]),
        (4, 5, ["d", "e"]),  # Q3: a window at the last line also returns the one before
        (3, 1, ["d"]),
        (-5, 2, ["a", "b"]),
        (0, 99, ["a", "b", "c", "d", "e"]),
    ],
)
def test_select_lines(start: int, end: int, expected: list[str]) -> None:
    assert select_lines(["a", "b", "c", "d", "e"], start, end) == expected


def test_read_window(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("1\n2\n3\n")
    assert read(tmp_path, "f.txt", start=1, end=2).content == "2\n"
