"""The FileStore contract, run against every store that works without a network."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from openhands.storage.files import FileStore
from openhands.storage.local import LocalFileStore
from openhands.storage.memory import InMemoryFileStore

StoreFactory = Callable[[], FileStore]


@pytest.fixture(params=["local", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> FileStore:
    if request.param == "local":
        return LocalFileStore(str(tmp_path / "root"))
    return InMemoryFileStore()


def test_write_then_read_text(store: FileStore) -> None:
    store.write("notes/a.txt", "hello ✓\n")
    assert store.read("notes/a.txt") == "hello ✓\n"


def test_bytes_are_read_back_as_text(store: FileStore) -> None:
    store.write("b.json", '{"k": "ü"}'.encode())
    assert store.read("b.json") == '{"k": "ü"}'


def test_read_bytes_gives_the_utf8_contents(store: FileStore) -> None:
    store.write("t.txt", "hello ✓")
    store.write("b.bin", '{"k": "ü"}'.encode())
    assert store.read_bytes("t.txt") == "hello ✓".encode()
    assert store.read_bytes("b.bin") == '{"k": "ü"}'.encode()
    with pytest.raises(FileNotFoundError):
        store.read_bytes("nope/missing.json")


def test_write_overwrites(store: FileStore) -> None:
    store.write("x.txt", "a much longer first version")
    store.write("x.txt", "short")
    assert store.read("x.txt") == "short"


def test_read_missing_raises_file_not_found(store: FileStore) -> None:
    with pytest.raises(FileNotFoundError):
        store.read("nope/missing.json")


def test_write_private_reads_back(store: FileStore) -> None:
    store.write_private("settings.json", '{"llm_api_key": "sk-x"}')
    assert store.read("settings.json") == '{"llm_api_key": "sk-x"}'


def test_list_gives_full_paths_and_marks_directories(store: FileStore) -> None:
    store.write("sessions/abc/metadata.json", "{}")
    store.write("sessions/abc/events/0.json", "{}")
    store.write("sessions/abc/events/1.json", "{}")
    store.write("sessions/def/events/0.json", "{}")

    assert sorted(store.list("sessions")) == ["sessions/abc/", "sessions/def/"]
    assert sorted(store.list("sessions/")) == ["sessions/abc/", "sessions/def/"]
    assert sorted(store.list("sessions/abc/")) == [
        "sessions/abc/events/",
        "sessions/abc/metadata.json",
    ]
    assert sorted(store.list("sessions/abc/events")) == [
        "sessions/abc/events/0.json",
        "sessions/abc/events/1.json",
    ]


def test_list_root(store: FileStore) -> None:
    store.write("top.txt", "1")
    store.write("dir/inner.txt", "2")
    assert sorted(store.list("")) == ["dir/", "top.txt"]


def test_delete_file(store: FileStore) -> None:
    store.write("d/one.txt", "1")
    store.write("d/two.txt", "2")
    store.delete("d/one.txt")
    with pytest.raises(FileNotFoundError):
        store.read("d/one.txt")
    assert store.read("d/two.txt") == "2"


def test_delete_directory_is_recursive(store: FileStore) -> None:
    store.write("sessions/abc/events/0.json", "{}")
    store.write("sessions/abc/metadata.json", "{}")
    store.write("sessions/keep/metadata.json", "{}")
    store.delete("sessions/abc")
    for path in ("sessions/abc/events/0.json", "sessions/abc/metadata.json"):
        with pytest.raises(FileNotFoundError):
            store.read(path)
    assert store.list("sessions/") == ["sessions/keep/"]


def test_delete_missing_is_not_an_error(store: FileStore) -> None:
    store.delete("never/written.txt")
    store.delete("never/")


def test_write_after_deleting_the_directory_recreates_it(store: FileStore) -> None:
    store.write("sessions/abc/events/0.json", "{}")
    store.delete("sessions/abc")
    store.write("sessions/abc/events/1.json", "again")
    assert store.read("sessions/abc/events/1.json") == "again"


def test_write_atomic_reads_back_and_overwrites(store: FileStore) -> None:
    store.write_atomic("conv/events/0.json", b'{"id": 0}', "conv/.scratch/0")
    store.write_atomic("conv/events/0.json", b'{"id": 0, "v": 2}', "conv/.scratch/0")
    assert store.read_bytes("conv/events/0.json") == b'{"id": 0, "v": 2}'
    assert store.list("conv/events/") == ["conv/events/0.json"]


def test_sequence_end(store: FileStore) -> None:
    assert store.sequence_end("seq/", ".json", 0, 64) == 0  # missing directory
    for n in (0, 1, 2, 5):
        store.write(f"seq/{n}.json", "{}")
    store.write("seq/notes.txt", "x")
    store.write("seq/9.txt", "x")
    assert store.sequence_end("seq/", ".json", 0, 64) == 6
    assert store.sequence_end("seq/", ".json", 6, 64) == 6  # nothing from 6 on
    assert store.sequence_end("seq/", ".json", 3, 64) == 6


def test_list_names_gives_the_last_segments(store: FileStore) -> None:
    store.write("conv/event_cache/0-25.json", "[]")
    store.write("conv/event_cache/sub/x.json", "[]")
    assert sorted(store.list_names("conv/event_cache/")) == ["0-25.json", "sub"]


# --- documented differences ---------------------------------------------------------------


def test_local_list_of_missing_directory_raises(tmp_path: Path) -> None:
    store = LocalFileStore(str(tmp_path))
    with pytest.raises(FileNotFoundError):
        store.list("sessions/none/")


def test_memory_list_of_missing_directory_is_empty() -> None:
    assert InMemoryFileStore().list("sessions/none/") == []


def test_memory_list_uses_plain_string_prefix() -> None:
    store = InMemoryFileStore()
    store.write("a/b/file.txt", "1")
    store.write("a/bc/file.txt", "2")
    store.write("a/bfile.txt", "3")
    # "a/b" is a string prefix of all three keys: "a/bfile.txt" counts as a direct child
    # and the deeper key under "a/bc/" shows up as the directory "a/b/c/".
    assert sorted(store.list("a/b")) == ["a/b/c/", "a/b/file.txt", "a/bfile.txt"]
    store.delete("a/b")
    assert store.files == {}


def test_local_list_is_by_path_segment(tmp_path: Path) -> None:
    store = LocalFileStore(str(tmp_path))
    store.write("a/b/file.txt", "1")
    store.write("a/bc/file.txt", "2")
    assert store.list("a/b") == ["a/b/file.txt"]
    store.delete("a/b")
    assert store.read("a/bc/file.txt") == "2"


def test_memory_store_uses_the_given_dict() -> None:
    files = {"x.txt": "1"}
    store = InMemoryFileStore(files)
    store.write("y.txt", b"2")
    assert files == {"x.txt": "1", "y.txt": "2"}


def test_local_strips_leading_slash(tmp_path: Path) -> None:
    store = LocalFileStore(str(tmp_path))
    store.write("/abs/looking.txt", "1")
    assert (tmp_path / "abs" / "looking.txt").read_text() == "1"
    assert store.read("abs/looking.txt") == "1"
    assert store.list("/abs") == ["/abs/looking.txt"]


def test_local_root_is_created_and_tilde_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    store = LocalFileStore("~/.openhands-test")
    assert store.root == str(tmp_path / ".openhands-test")
    assert (tmp_path / ".openhands-test").is_dir()


def test_local_rejects_paths_escaping_the_root(tmp_path: Path) -> None:
    store = LocalFileStore(str(tmp_path / "root"))
    (tmp_path / "outside.txt").write_text("secret")
    with pytest.raises(ValueError):
        store.read("../outside.txt")
    with pytest.raises(ValueError):
        store.write("a/../../outside.txt", "overwritten")
    assert (tmp_path / "outside.txt").read_text() == "secret"
    store.write("a/../inside.txt", "ok")  # normalizes to a path under the root
    assert store.read("inside.txt") == "ok"


def test_local_writes_text_as_utf8_bytes_unchanged(tmp_path: Path) -> None:
    store = LocalFileStore(str(tmp_path))
    store.write("crlf.txt", "line1\r\nline2\n")
    assert (tmp_path / "crlf.txt").read_bytes() == b"line1\r\nline2\n"
    assert store.read("crlf.txt") == "line1\r\nline2\n"


def test_local_write_atomic_uses_the_scratch_path_and_is_atomic_without_atomic(
    tmp_path: Path,
) -> None:
    store = LocalFileStore(str(tmp_path), atomic=False)
    store.write_atomic("conv/events/7.json", b"{}", "conv/.event_tmp/7")
    assert sorted(os.listdir(tmp_path / "conv")) == [".event_tmp", "events"]
    assert os.listdir(tmp_path / "conv" / ".event_tmp") == []  # renamed into place
    assert (tmp_path / "conv/events/7.json").read_bytes() == b"{}"


def test_local_sequence_end_probes_from_start_within_the_gap(tmp_path: Path) -> None:
    store = LocalFileStore(str(tmp_path))
    for n in (100, 101, 103, 200):
        store.write(f"seq/{n}.json", "{}")
    assert store.sequence_end("seq/", ".json", 100, 1) == 102  # gives up at the missing 102
    assert store.sequence_end("seq/", ".json", 100, 2) == 104
    assert store.sequence_end("seq/", ".json", 100, 64) == 104  # 200 is too far behind


def test_local_list_names_hides_scratch_files_of_writes_in_flight(tmp_path: Path) -> None:
    store = LocalFileStore(str(tmp_path))
    store.write("d/0-25.json", "[]")
    (tmp_path / "d" / ".25-50.json.1-2.oh-tmp").write_text("[")
    assert store.list_names("d/") == ["0-25.json"]
    with pytest.raises(FileNotFoundError):
        store.list_names("missing/")


@pytest.mark.parametrize("unnamed_files", [True, False])
def test_local_write_new_creates_exclusively_and_leaves_no_scratch(
    tmp_path: Path, unnamed_files: bool
) -> None:
    store = LocalFileStore(str(tmp_path))
    store._unnamed_files = unnamed_files and store._unnamed_files  # False: the portable path
    store.write_new("conv/events/0.json", b'{"id": 0}')  # the directory is created
    assert (tmp_path / "conv/events/0.json").read_bytes() == b'{"id": 0}'
    with pytest.raises(FileExistsError):
        store.write_new("conv/events/0.json", b'{"id": 0, "v": 2}')
    assert (tmp_path / "conv/events/0.json").read_bytes() == b'{"id": 0}'  # untouched
    assert os.listdir(tmp_path / "conv/events") == ["0.json"]
    assert os.listdir(tmp_path / "conv") == ["events"]


def test_write_new_reads_back(store: FileStore) -> None:
    store.write_new("conv/events/3.json", b'{"id": 3}')
    assert store.read_bytes("conv/events/3.json") == b'{"id": 3}'


def test_local_write_new_without_hard_links_still_refuses_an_existing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalFileStore(str(tmp_path))
    store._unnamed_files = False

    def no_links(src: str, dst: str, **kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted")  # as FAT or a FUSE mount

    monkeypatch.setattr(os, "link", no_links)
    store.write_new("events/0.json", b"{}")
    with pytest.raises(FileExistsError):
        store.write_new("events/0.json", b"[]")
    assert (tmp_path / "events/0.json").read_bytes() == b"{}"
    assert os.listdir(tmp_path / "events") == ["0.json"]
