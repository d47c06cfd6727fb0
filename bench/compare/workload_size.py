"""Install-size workload: what installing the package puts on disk, as this interpreter sees it.

- the ``openhands`` package directory itself (``__pycache__`` left out on both sides);
- the runtime dependency closure: every distribution reachable from the package's
  distribution through its ``Requires-Dist`` entries (extras left out, markers evaluated
  for this interpreter), summed over the files its RECORD lists (byte code left out).
  Development tools in our venv (pytest, ruff, ...) are not reached, so both sides count
  what a user's ``pip install`` of the package brings.
"""

from __future__ import annotations

import importlib.metadata as metadata
import re
from pathlib import Path

import _workload as w

MB = 1024 * 1024
ROOT_DISTRIBUTIONS = ("openhands-ai", "openhands")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(dist: metadata.Distribution) -> list[str]:
    from packaging.requirements import Requirement

    names = []
    for line in dist.requires or []:
        requirement = Requirement(line)
        if requirement.marker and not requirement.marker.evaluate({"extra": ""}):
            continue
        names.append(_normal(requirement.name))
    return names


def _files_bytes(dist: metadata.Distribution) -> int:
    total = 0
    for entry in dist.files or []:
        if entry.suffix == ".pyc" or "__pycache__" in entry.parts:
            continue
        path = Path(str(entry.locate()))
        if path.is_file():
            total += path.stat().st_size
    return total


def _package_bytes() -> int:
    import openhands

    root = Path(openhands.__file__).parent
    return sum(
        p.stat().st_size for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )


def main() -> None:
    w.quiet_environment()
    installed = {_normal(d.metadata["Name"]): d for d in metadata.distributions()}
    root = next(installed[name] for name in ROOT_DISTRIBUTIONS if name in installed)
    seen: set[str] = set()
    todo = _requirements(root)
    while todo:
        name = todo.pop()
        if name in seen or name not in installed:
            continue
        seen.add(name)
        todo.extend(_requirements(installed[name]))
    w.emit(
        {
            "package_mb": _package_bytes() / MB,
            "dependencies_mb": sum(_files_bytes(installed[n]) for n in seen) / MB,
            "dependency_count": float(len(seen)),
        }
    )


if __name__ == "__main__":
    main()
