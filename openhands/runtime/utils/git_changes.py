"""Print the changed files of every git repository under the cwd as JSON (runs in the sandbox).

Output: ``[{"status": "M"|"A"|"D"|"U", "path": "<path relative to cwd>"}, ...]`` sorted by
path. Changes are relative to the remote default branch when there is one, else to HEAD,
plus untracked files. Standalone on purpose: only the standard library.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def _git(repo: str, *args: str) -> str:
    result = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=False)
    return result.stdout if result.returncode == 0 else ""


def _base_ref(repo: str) -> str | None:
    remote_head = _git(repo, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD").strip()
    if remote_head:
        merge_base = _git(repo, "merge-base", "HEAD", remote_head).strip()
        if merge_base:
            return merge_base
    return "HEAD" if _git(repo, "rev-parse", "--verify", "--quiet", "HEAD").strip() else None


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
    if base:
        for line in _git(repo, "diff", "--name-status", base).splitlines():
            parts = line.split("\t")
            if len(parts) < 2:
                continue
            status = parts[0][0]
            path = parts[-1]
            changes[path] = {"R": "M", "C": "A", "T": "M"}.get(status, status)
    else:
        for path in _git(repo, "ls-files", "--cached").splitlines():
            changes[path] = "A"
    for path in _git(repo, "ls-files", "--others", "--exclude-standard").splitlines():
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
