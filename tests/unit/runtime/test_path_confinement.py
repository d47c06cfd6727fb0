"""Confinement of user-given paths: the shared helpers (runtime/utils/files.py) and the action
server's file transfer (upload, zip upload, download, listing) on a real filesystem."""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

import pytest

from openhands.runtime.server.file_transfer import (
    TransferError,
    list_directory,
    save_upload,
    zip_path,
)
from openhands.runtime.utils.files import (
    PathRefusedError,
    check_file_name,
    relative_inside,
    resolve_inside,
)

# --- the helpers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [("a.txt", "a.txt"), ("sub/b.txt", "sub/b.txt"), ("./sub//c", "sub/c"), ("a/../b", "b"),
     ("", ""), (".", ""), ("sub/", "sub")],
)  # fmt: skip
def test_relative_inside_normalises(given: str, expected: str) -> None:
    assert relative_inside(given) == expected


@pytest.mark.parametrize(
    "given",
    ["/etc/passwd", "..", "../x", "a/../../x", "a/b/../../..", "x\x00y", "a\nb",
     "n" * 256, "d/" + "n" * 256, "a/" * 2100],
)  # fmt: skip
def test_relative_inside_refuses(given: str) -> None:
    with pytest.raises(PathRefusedError):
        relative_inside(given)


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "n" * 256, "é" * 128, "x\x00"])
def test_check_file_name_refuses(name: str) -> None:
    with pytest.raises(PathRefusedError):
        check_file_name(name)


def test_check_file_name_counts_bytes() -> None:
    check_file_name("n" * 255)
    check_file_name("é" * 127)  # 254 bytes


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``ws/`` with a file, a subdirectory, links inside and links out; ``outside/secret``."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("SECRET")
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "sub" / "inner.txt").write_text("inner")
    (ws / "a.txt").write_text("a")
    (ws / "alias.txt").symlink_to("a.txt")
    (ws / "subalias").symlink_to("sub")
    (ws / "out").symlink_to(outside)
    (ws / "secret.txt").symlink_to(outside / "secret")
    (ws / "root").symlink_to("/")
    (ws / "up").symlink_to("..")
    return ws


def test_resolve_inside_follows_links_but_stays_in(tree: Path) -> None:
    real = os.path.realpath(tree)
    assert resolve_inside(str(tree), "alias.txt") == f"{real}/a.txt"
    assert resolve_inside(str(tree), "subalias/inner.txt") == f"{real}/sub/inner.txt"
    assert resolve_inside(str(tree), "") == real
    for escaping in ("out", "out/secret", "secret.txt", "root/etc", "up", "../outside", "/etc"):
        with pytest.raises(PathRefusedError):
            resolve_inside(str(tree), escaping)


# --- listing ---------------------------------------------------------------------------------


def test_list_directory_confines_relative_paths(tree: Path) -> None:
    assert list_directory("subalias", str(tree)) == ["inner.txt"]
    assert list_directory("a.txt", str(tree)) == []  # inside, not a directory
    for escaping in ("out", "root", "up", "../outside", "sub/../../outside", "x\x00"):
        with pytest.raises(TransferError) as refused:
            list_directory(escaping, str(tree))
        assert refused.value.status_code == 400


# --- upload ----------------------------------------------------------------------------------


def upload(dest: Path, name: str, data: bytes, recursive: bool = False) -> None:
    save_upload(name, io.BytesIO(data), str(dest), recursive)


def test_upload_replaces_a_link_instead_of_writing_through_it(tree: Path) -> None:
    outside = tree.parent / "outside" / "secret"
    upload(tree, "secret.txt", b"new")
    assert outside.read_text() == "SECRET"
    assert not (tree / "secret.txt").is_symlink()
    assert (tree / "secret.txt").read_bytes() == b"new"


def test_upload_does_not_write_into_a_hard_linked_file(tree: Path) -> None:
    outside = tree.parent / "outside" / "secret"
    os.link(outside, tree / "hard.txt")
    upload(tree, "hard.txt", b"new")
    assert outside.read_text() == "SECRET"
    assert (tree / "hard.txt").read_bytes() == b"new"


def test_upload_refuses_bad_names_and_special_files(tree: Path) -> None:
    os.mkfifo(tree / "fifo")
    for name in ("n" * 256, "fifo", "sub", "..", ""):
        with pytest.raises(TransferError) as refused:
            upload(tree, name, b"x")
        assert refused.value.status_code == 400, name
    upload(tree, "dir/../n" + "m" * 200, b"x")  # the basename is taken, as before
    assert (tree / ("n" + "m" * 200)).read_bytes() == b"x"


def zip_of(*members: tuple[str, bytes] | tuple[str, str, str]) -> bytes:
    """Regular members ``(name, data)``; symlink members ``(name, "link", target)``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member in members:
            if len(member) == 3:
                info = zipfile.ZipInfo(member[0])
                info.create_system = 3
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                archive.writestr(info, str(member[2]))
            else:
                archive.writestr(member[0], member[1])
    return buffer.getvalue()


@pytest.mark.parametrize(
    "members",
    [
        [("../escaped.txt", b"x")],
        [("ok/../../escaped.txt", b"x")],
        [("/tmp/escaped-abs.txt", b"x")],
        [("out/escaped.txt", b"x")],  # through the workspace's link out
        [("root/tmp/escaped-root.txt", b"x")],
        [("up/escaped.txt", b"x")],
        [("evil", "link", "/etc")],
        [("evil", "link", "../outside")],
        [("q", "link", "."), ("p", "link", "q/..")],  # each fine alone, together out
        [("p", "link", "q/.."), ("q", "link", ".")],
        [("n" * 300, b"x")],
    ],
)
def test_zip_upload_refuses_members_that_leave(tree: Path, members: list) -> None:
    before = sorted(os.listdir(tree.parent))
    with pytest.raises(TransferError) as refused:
        upload(tree, "evil.zip", zip_of(*members))
    assert refused.value.status_code == 400
    assert sorted(os.listdir(tree.parent)) == before
    assert (tree.parent / "outside").exists() and os.listdir(tree.parent / "outside") == ["secret"]
    for name in ("evil", "p", "q"):
        assert not (tree / name).is_symlink()


def test_zip_upload_keeps_links_that_stay_inside(tree: Path) -> None:
    upload(
        tree,
        "pkg.zip",
        zip_of(
            ("pkg/lib/real.txt", b"real"),
            ("pkg/bin/tool", "link", "../lib/real.txt"),
            ("subalias/via-link.txt", b"via"),  # a link of the workspace that stays inside
            ("alias.txt", b"replaced"),  # replaces the link, not a.txt
        ),
    )
    assert os.readlink(tree / "pkg" / "bin" / "tool") == "../lib/real.txt"
    assert (tree / "pkg" / "bin" / "tool").read_text() == "real"
    assert (tree / "sub" / "via-link.txt").read_text() == "via"
    assert (tree / "a.txt").read_text() == "a"
    assert (tree / "alias.txt").read_text() == "replaced"
    assert not list(tree.glob("*.zip"))


# --- download --------------------------------------------------------------------------------


def test_download_stores_inside_links_and_skips_links_out(tree: Path) -> None:
    os.mkfifo(tree / "fifo")
    archive_path = zip_path(str(tree))
    try:
        with zipfile.ZipFile(archive_path) as archive:
            entries = {info.filename: info for info in archive.infolist()}
            assert set(entries) == {"a.txt", "alias.txt", "subalias", "sub/inner.txt"}
            for link, target in (("alias.txt", b"a.txt"), ("subalias", b"sub")):
                assert stat.S_ISLNK(entries[link].external_attr >> 16)
                assert archive.read(link) == target
            assert b"SECRET" not in Path(archive_path).read_bytes()
    finally:
        os.remove(archive_path)
