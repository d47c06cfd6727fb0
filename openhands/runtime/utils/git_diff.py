"""Print ``{"modified": ..., "original": ...}`` for one file as JSON (runs in the sandbox).

``original`` is the file at the comparison base (the pushed current branch, else the remote
default branch; empty for a never-pushed repository), ``modified``
the file in the working tree; files over 1 MB are refused. Only the standard library.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

MAX_FILE_BYTES = 1024 * 1024


def _git(repo: str, *args: str) -> tuple[int, str]:
    result = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=False)
    return result.returncode, result.stdout


def _repo_of(path: str) -> str | None:
    directory = os.path.dirname(os.path.abspath(path))
    code, out = _git(directory, "rev-parse", "--show-toplevel")
    return out.strip() if code == 0 else None


def _base_ref(repo: str) -> str | None:
    """The same comparison base as ``git_changes.py``: the current branch on ``origin`` once
    pushed, else the merge base with the remote default branch; None (the empty tree, so no
    original) for a repository without a remote."""
    code, branch = _git(repo, "rev-parse", "--abbrev-ref", "HEAD")
    branch = branch.strip()
    if code == 0 and branch and branch != "HEAD":
        pushed = f"refs/remotes/origin/{branch}"
        if _git(repo, "rev-parse", "--verify", "--quiet", pushed)[0] == 0:
            return pushed
    code, head = _git(repo, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
    if code == 0 and head.strip():
        mb_code, merge_base = _git(repo, "merge-base", "HEAD", head.strip())
        if mb_code == 0 and merge_base.strip():
            return merge_base.strip()
        return head.strip()
    return None


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: git_diff.py <file>", file=sys.stderr)
        return 2
    path = os.path.abspath(argv[1])
    modified = ""
    if os.path.isfile(path):
        if os.path.getsize(path) > MAX_FILE_BYTES:
            print(f"{path} is larger than 1 MB", file=sys.stderr)
            return 1
        with open(path, encoding="utf-8", errors="replace") as f:
            modified = f.read()
    original = ""
    repo = _repo_of(path)
    if repo:
        rel = os.path.relpath(path, repo)
        base = _base_ref(repo)
        if base is not None:
            code, content = _git(repo, "show", f"{base}:{rel}")
            if code == 0:
                original = content
    json.dump({"modified": modified, "original": original}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
