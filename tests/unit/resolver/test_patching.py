"""The diff parser and applier, fed by the real ``diff`` and ``git diff`` programs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from openhands.resolver.patching import apply_diff, parse_patch
from openhands.resolver.patching.exceptions import HunkApplyException
from openhands.resolver.patching.patch import parse_diff

OLD = "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n"
NEW = "alpha\nBETA\ngamma\ndelta\nepsilon\nzeta\ninserted\neta\n"


def diff_output(tmp_path: Path, *options: str) -> str:
    (tmp_path / "old.txt").write_text(OLD)
    (tmp_path / "new.txt").write_text(NEW)
    completed = subprocess.run(
        ["diff", *options, "old.txt", "new.txt"], cwd=tmp_path, capture_output=True, text=True
    )
    assert completed.returncode == 1, completed.stderr  # 1 = files differ
    return completed.stdout


@pytest.mark.parametrize(
    "options", [("-u",), ("-U1",), ("-c",), ()], ids=["unified", "unified-1", "context", "normal"]
)
def test_each_diff_format_reproduces_the_new_text(tmp_path: Path, options: tuple[str, ...]) -> None:
    [diff] = parse_patch(diff_output(tmp_path, *options))
    assert apply_diff(diff, OLD) == NEW.splitlines()
    assert apply_diff(diff, NEW, reverse=True) == OLD.splitlines()


def test_unified_header_keeps_paths_and_timestamps(tmp_path: Path) -> None:
    [diff] = parse_patch(diff_output(tmp_path, "-u"))
    assert diff.header is not None
    assert (diff.header.old_path, diff.header.new_path) == ("old.txt", "new.txt")
    assert diff.header.old_version  # the timestamp


def test_a_context_mismatch_names_the_hunk(tmp_path: Path) -> None:
    [diff] = parse_patch(diff_output(tmp_path, "-u"))
    with pytest.raises(
        HunkApplyException, match=r'context line 2, "beta" does not match "other", in hunk #1'
    ):
        apply_diff(diff, OLD.replace("beta", "other"))
    with pytest.raises(HunkApplyException, match="does not exist in source"):
        apply_diff(diff, "alpha\n")


def test_indentation_differences_in_context_are_tolerated() -> None:
    patch = "--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,3 @@\n def f():\n+    x = 1\n   return 0\n"
    [diff] = parse_patch(patch)
    assert apply_diff(diff, "def f():\n    return 0") == ["def f():", "    x = 1", "    return 0"]


def test_git_patch_with_several_files_and_crlf(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", *args], cwd=tmp_path, check=True, capture_output=True, text=True
        )

    run("init", "-q")
    (tmp_path / "keep.txt").write_text("one\ntwo\n")
    (tmp_path / "gone.txt").write_text("bye\n")
    run("add", ".")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    (tmp_path / "keep.txt").write_text("one\n2\n")
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "new.txt").write_text("fresh\n")
    run("add", "-A")
    patch = run("diff", "--cached").stdout.replace("\n", "\r\n")

    diffs = {d.header.new_path: d for d in parse_patch(patch) if d.header}

    assert set(diffs) == {"keep.txt", "/dev/null", "new.txt"}
    assert diffs["/dev/null"].header.old_path == "gone.txt"
    assert diffs["new.txt"].header.old_path == "/dev/null"
    assert apply_diff(diffs["keep.txt"], ["one", "two"]) == ["one", "2"]
    assert apply_diff(diffs["new.txt"], []) == ["fresh"]


def test_empty_lines_are_context_and_missing_counts_mean_one() -> None:
    changes = parse_diff("@@ -1 +1 @@\n-old\n+new\n")
    assert changes is not None
    assert [(c.old, c.new, c.line, c.hunk) for c in changes] == [
        (1, None, "old", 1),
        (None, 1, "new", 1),
    ]
    with_blank = parse_diff("@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n")
    assert with_blank is not None
    assert with_blank[1][:3] == (2, 2, "")
