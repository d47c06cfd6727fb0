"""Directory semantics on top of flat object keys, shared by the S3 and GCS stores.

Object stores only know keys. A "directory" ``a/b/`` exists when some key starts with it.
"""

from __future__ import annotations

from collections.abc import Iterable


def directory_prefix(path: str) -> str:
    """The key prefix under which the children of ``path`` live (``""`` for the root)."""
    if not path or path == "/":
        return ""
    return path if path.endswith("/") else path + "/"


def object_path(path: str) -> str:
    """The key of ``path`` taken as a single object (no trailing ``/``)."""
    if not path or path == "/":
        return ""
    return path.removesuffix("/")


def immediate_children(prefix: str, keys: Iterable[str]) -> list[str]:
    """Full paths of the direct children of ``prefix`` among ``keys``.

    Keys right under the prefix are files; deeper keys contribute their first level as a
    directory entry ending with ``/``. The prefix itself (a "directory marker") is skipped.
    """
    children: dict[str, None] = {}  # insertion-ordered set
    for key in keys:
        if key == prefix or not key.startswith(prefix):
            continue
        rest = key[len(prefix) :]
        slash = rest.find("/", 1)
        children[key if slash == -1 else prefix + rest[: slash + 1]] = None
    return list(children)
