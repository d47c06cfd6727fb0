"""Content hashes and tag names of sandbox runtime images (runtime.md §12.2).

``<repo>:oh_v<V>_<lock_hash>_<source_hash>`` names an image whose dependencies and server
source are exactly the current ones, so an existing tag means "reuse, do not build".
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[3]
RUNTIME_CONTAINER_DIR = PROJECT_ROOT / "containers" / "runtime"
DEFAULT_RUNTIME_IMAGE_REPO = "openhands-runtime"

# Files whose bytes decide the dependency layer (our stand-in for pyproject.toml + poetry.lock).
LOCK_FILES: tuple[Path, ...] = (
    RUNTIME_CONTAINER_DIR / "requirements.lock",
    RUNTIME_CONTAINER_DIR / "tools.lock",
    RUNTIME_CONTAINER_DIR / "Dockerfile.j2",
)
# What of our package the action execution server needs inside the sandbox.
SERVER_SOURCES: tuple[str, ...] = (
    "openhands/__init__.py",
    "openhands/core",
    "openhands/events",
    "openhands/runtime",
    "openhands/llm/__init__.py",
    "openhands/llm/metrics.py",
)

try:
    OH_VERSION = version("openhands")
except PackageNotFoundError:  # running from a source tree that is not installed
    OH_VERSION = "0.59.0"

_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def truncate_hash(hex_digest: str) -> str:
    """Hex digest → base 36, least significant digit first, at most 16 digits."""
    value = int(hex_digest, 16)
    digits: list[str] = []
    while value and len(digits) < 16:
        value, rest = divmod(value, 36)
        digits.append(_BASE36[rest])
    return "".join(digits)


def get_runtime_image_repo() -> str:
    return os.environ.get("OH_RUNTIME_RUNTIME_IMAGE_REPO", DEFAULT_RUNTIME_IMAGE_REPO)


def get_hash_for_lock_files(
    base_image: str,
    enable_browser: bool = True,
    base_image_id: str | None = None,
    lock_files: tuple[Path, ...] = LOCK_FILES,
) -> str:
    """Hash of everything below the source layer. ``base_image_id`` (the local id of the base)
    makes a rebuilt base give a new lock tag even though its name stayed the same."""
    md5 = hashlib.md5()
    md5.update(base_image.encode())
    if base_image_id:
        md5.update(base_image_id.encode())
    if not enable_browser:
        md5.update(b"False")
    for path in lock_files:
        md5.update(path.read_bytes())
    return truncate_hash(md5.hexdigest())


def iter_source_files(
    root: Path = PROJECT_ROOT, sources: tuple[str, ...] = SERVER_SOURCES
) -> Iterator[Path]:
    """Server source files (relative to ``root``), skipping hidden dirs and bytecode, sorted."""
    found: list[Path] = []
    for entry in sources:
        path = root / entry
        if path.is_file():
            found.append(Path(entry))
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
            for name in filenames:
                if name.endswith(".pyc") or name.endswith(".md"):
                    continue
                found.append((Path(dirpath) / name).relative_to(root))
    return iter(sorted(found))


def get_hash_for_source_files(
    root: Path = PROJECT_ROOT, sources: tuple[str, ...] = SERVER_SOURCES
) -> str:
    md5 = hashlib.md5()
    for relative in iter_source_files(root, sources):
        md5.update(str(relative).encode() + b"\0")
        md5.update((root / relative).read_bytes())
        md5.update(b"\0")
    return truncate_hash(md5.hexdigest())


def get_tag_for_versioned_image(base_image: str) -> str:
    mangled = base_image.replace("/", "_s_").replace(":", "_t_").lower()[-96:]
    return f"oh_v{OH_VERSION}_{mangled}"


def get_runtime_image_repo_and_tag(base_image: str) -> tuple[str, str]:
    """Map a base image to the runtime repo and a tag naming it (pre-built-image helper).

    An image that already is one of our runtime images maps to itself."""
    repo = get_runtime_image_repo()
    if base_image.startswith(f"{repo}:"):
        return repo, base_image.split(":", 1)[1]
    if ":" not in base_image.rsplit("/", 1)[-1]:
        base_image += ":latest"
    base_repo, base_tag = base_image.rsplit(":", 1)
    mangled_repo = base_repo.replace("/", "_s_")
    if len(mangled_repo) > 32:
        digest = hashlib.md5(mangled_repo.encode()).hexdigest()[:8]
        mangled_repo = f"{digest}_{mangled_repo[-24:]}"
    tag = f"oh_v{OH_VERSION}_image_{mangled_repo}_tag_{base_tag}"
    if len(tag) > 128:
        tag = f"oh_v{OH_VERSION}_image_{hashlib.md5(tag.encode()).hexdigest()}"
    return repo, tag
