"""Hashes and tag names of runtime images (runtime.md §12.2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from openhands.runtime.utils import runtime_hash
from openhands.runtime.utils.runtime_hash import (
    OH_VERSION,
    get_hash_for_lock_files,
    get_hash_for_source_files,
    get_runtime_image_repo_and_tag,
    get_tag_for_versioned_image,
    iter_source_files,
    truncate_hash,
)


def test_truncate_hash_matches_reference_example() -> None:
    assert truncate_hash("b08f254d76b1c6a7ad924708c0032251") == "pma2wc71uq3c9a85"


def test_truncate_hash_is_short_base36() -> None:
    value = truncate_hash("f" * 32)
    assert len(value) == 16
    assert set(value) <= set("0123456789abcdefghijklmnopqrstuvwxyz")


def _tree(root: Path) -> tuple[str, ...]:
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("A = 1\n")
    (root / "pkg" / "sub" / "b.py").write_text("B = 2\n")
    (root / "pkg" / "__pycache__").mkdir()
    (root / "pkg" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"junk")
    (root / "pkg" / ".hidden").mkdir()
    (root / "pkg" / ".hidden" / "c.py").write_text("C = 3\n")
    (root / "pkg" / "README.md").write_text("docs\n")
    return ("pkg",)


def test_source_hash_ignores_caches_hidden_dirs_and_docs(tmp_path: Path) -> None:
    sources = _tree(tmp_path)
    files = [str(p) for p in iter_source_files(tmp_path, sources)]
    assert files == ["pkg/a.py", "pkg/sub/b.py"]
    before = get_hash_for_source_files(tmp_path, sources)
    (tmp_path / "pkg" / "__pycache__" / "x.pyc").write_bytes(b"more junk")
    (tmp_path / "pkg" / ".hidden" / "c.py").write_text("C = 4\n")
    (tmp_path / "pkg" / "README.md").write_text("other docs\n")
    assert get_hash_for_source_files(tmp_path, sources) == before
    (tmp_path / "pkg" / "sub" / "b.py").write_text("B = 3\n")
    assert get_hash_for_source_files(tmp_path, sources) != before


def test_source_hash_sees_renames(tmp_path: Path) -> None:
    sources = _tree(tmp_path)
    before = get_hash_for_source_files(tmp_path, sources)
    (tmp_path / "pkg" / "a.py").rename(tmp_path / "pkg" / "a2.py")
    assert get_hash_for_source_files(tmp_path, sources) != before


def test_lock_hash_depends_on_base_browser_and_lock_bytes(tmp_path: Path) -> None:
    lock = tmp_path / "requirements.lock"
    lock.write_text("fastapi==1\n")
    files = (lock,)
    base = get_hash_for_lock_files("img:a", True, None, files)
    assert get_hash_for_lock_files("img:a", True, None, files) == base
    assert get_hash_for_lock_files("img:b", True, None, files) != base
    assert get_hash_for_lock_files("img:a", False, None, files) != base
    assert get_hash_for_lock_files("img:a", True, "sha256:1", files) != base
    lock.write_text("fastapi==2\n")
    assert get_hash_for_lock_files("img:a", True, None, files) != base


def test_versioned_tag_mangles_the_base_name() -> None:
    tag = get_tag_for_versioned_image("Docker.io/Library/Debian:Bookworm")
    assert tag == f"oh_v{OH_VERSION}_docker.io_s_library_s_debian_t_bookworm"
    long_tag = get_tag_for_versioned_image("r/" + "x" * 200 + ":t")
    assert long_tag == f"oh_v{OH_VERSION}_" + ("r_s_" + "x" * 200 + "_t_t")[-96:]


def test_repo_and_tag_for_prebuilt_images(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OH_RUNTIME_RUNTIME_IMAGE_REPO", "my-runtime")
    assert get_runtime_image_repo_and_tag("my-runtime:oh_v1_abc") == ("my-runtime", "oh_v1_abc")
    repo, tag = get_runtime_image_repo_and_tag("nikolaik/python-nodejs:python3.12-nodejs22")
    assert repo == "my-runtime"
    assert tag == f"oh_v{OH_VERSION}_image_nikolaik_s_python-nodejs_tag_python3.12-nodejs22"
    _, tag = get_runtime_image_repo_and_tag("debian")
    assert tag.endswith("_image_debian_tag_latest")
    _, tag = get_runtime_image_repo_and_tag("a" * 40 + ":x")
    assert tag.startswith(f"oh_v{OH_VERSION}_image_") and tag.endswith("_" + "a" * 24 + "_tag_x")


def test_server_sources_exist_in_the_repo() -> None:
    for entry in runtime_hash.SERVER_SOURCES:
        assert (runtime_hash.PROJECT_ROOT / entry).exists(), entry
