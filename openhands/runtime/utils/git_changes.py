"""Print the changed files of every git repository under the cwd as JSON (runs in the sandbox).

Output: ``[{"status": "M"|"A"|"D"|"U", "path": "<path relative to cwd>"}, ...]`` sorted by
path. Changes are relative to the pushed current branch, else the remote default branch,
else the empty tree, plus untracked files. Standalone on purpose: only the standard library.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def _git(repo: str, *args: str) -> str:
    result = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=False)
    return result.stdout if result.returncode == 0 else ""


EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def _base_ref(repo: str) -> str | None:
    """What the working tree is compared with: the current branch on ``origin`` once it was
    pushed, else the merge base with the remote default branch, else the empty tree (a
    repository without a remote shows every file as added). None outside a work tree."""
    if not _git(repo, "rev-parse", "--is-inside-work-tree").strip():
        return None
    branch = _git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
    if branch and branch != "HEAD":
        pushed = f"refs/remotes/origin/{branch}"
        if _git(repo, "rev-parse", "--verify", "--quiet", pushed).strip():
            return pushed
    remote_head = _git(repo, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD").strip()
    if remote_head:
        merge_base = _git(repo, "merge-base", "HEAD", remote_head).strip()
        if merge_base:
            return merge_base
        if _git(repo, "rev-parse", "--verify", "--quiet", remote_head).strip():
            return remote_head
    return EMPTY_TREE


def _find_repos(root: str) -> list[str]:
    repos = []
    for current, dirs, _files in os.walk(root):
        if ".git" in dirs or os.path.isfile(os.path.join(current, ".git")):
            repos.append(current)
        dirs[:] = [d for d in dirs if d not in (".git", "node_modules", ".venv", "__pycache__")]
    return repos


def _changes(repo: str, root: str) -> list[dict[str, str]]:
    changes: dict[str, str] = {}
    base = _base_ref(repo)
    if base is None:
        return []
    for line in _git(repo, "diff", "--name-status", base).splitlines():
        parts = line.split("\t")
        if len(parts) < 2:
            continue
        status = parts[0][0]
        path = parts[-1]
        changes[path] = {"R": "M", "C": "A", "T": "M"}.get(status, status)
    for path in _git(repo, "ls-files", "--others", "--exclude-standard").splitlines():
        # A nested repository shows up as its directory; its own files are listed
        # when that repository is walked.
        if not path.endswith("/"):
            changes[path] = "A"
    prefix = os.path.relpath(repo, root)
    return [
        {
            "status": status if status in ("M", "A", "D", "U") else "M",
            "path": path if prefix == "." else os.path.join(prefix, path),
        }
        for path, status in changes.items()
    ]


def main() -> int:
    root = os.getcwd()
    result: list[dict[str, str]] = []
    for repo in _find_repos(root):
        result.extend(_changes(repo, root))
    result.sort(key=lambda c: c["path"])
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
