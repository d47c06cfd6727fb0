"""The local sandbox base image: Debian made with debootstrap and loaded with `docker import`.

No registry is reachable, so `FROM debian:...` is impossible. The root filesystem tarball is
cached by the hash of its package list, so re-importing it after the image was removed takes
seconds. The image gets two names: the stable default (``DEFAULT_BASE_IMAGE``) and one carrying
the package-list key, which tells whether the stable name is current.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from openhands.core.logger import openhands_logger as logger
from openhands.runtime.builder.base import ProgressCallback, RuntimeBuilder
from openhands.runtime.errors import AgentRuntimeBuildError

SUITE = "bookworm"
VARIANT = "minbase"
BASE_IMAGE_REPO = "openhands-sandbox-base"
DEFAULT_BASE_IMAGE = f"{BASE_IMAGE_REPO}:{SUITE}"

# What the action server and an agent at work need on top of minbase.
BASE_PACKAGES: tuple[str, ...] = (
    "bash",
    "ca-certificates",
    "curl",
    "git",
    "jq",
    "less",
    "procps",
    "python-is-python3",
    "python3",
    "python3-pip",
    "python3-venv",
    "ripgrep",
    "sudo",
    "tmux",
    "unzip",
    "zip",
)

_IMPORT_CHANGES = [
    "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "ENV LANG=C.UTF-8",
    "ENV LC_ALL=C.UTF-8",
    'CMD ["/bin/bash"]',
]
_APT_SOURCES = (Path("/etc/apt/sources.list.d/debian.sources"), Path("/etc/apt/sources.list"))


def base_packages_key(packages: tuple[str, ...] = BASE_PACKAGES) -> str:
    """A short key that changes whenever the rootfs recipe changes."""
    recipe = "\n".join([SUITE, VARIANT, *sorted(packages)])
    return hashlib.sha256(recipe.encode()).hexdigest()[:12]


def keyed_base_image(packages: tuple[str, ...] = BASE_PACKAGES) -> str:
    return f"{BASE_IMAGE_REPO}:{SUITE}-{base_packages_key(packages)}"


def build_cache_dir() -> Path:
    """Where rootfs tarballs and wheels are kept between builds."""
    configured = os.environ.get("OH_RUNTIME_BUILD_CACHE")
    if configured:
        return Path(configured)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "openhands" / "runtime-build"


# -- mirror -----------------------------------------------------------------------------


def find_debian_mirror(sources: tuple[Path, ...] = _APT_SOURCES, suite: str = SUITE) -> str:
    """The host's own mirror for ``suite``: deb822 ``URIs:`` of the stanza listing the suite,
    or the URI of a one-line ``deb URI suite ...`` entry. Never a hard-coded host."""
    for path in sources:
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        mirror = _mirror_from_deb822(text, suite) if path.suffix == ".sources" else None
        mirror = mirror or _mirror_from_one_line(text, suite)
        if mirror:
            return mirror
    where = ", ".join(str(p) for p in sources)
    raise AgentRuntimeBuildError(
        f"No apt mirror for the {suite} suite found in {where}; debootstrap needs one."
    )


def _mirror_from_deb822(text: str, suite: str) -> str | None:
    for stanza in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        for line in stanza.splitlines():
            if line.startswith("#") or ":" not in line:
                continue
            key, _, value = line.partition(":")
            fields[key.strip().lower()] = value.strip()
        if "deb" in fields.get("types", "").split() and suite in fields.get("suites", "").split():
            uris = fields.get("uris", "").split()
            if uris:
                return uris[0]
    return None


def _mirror_from_one_line(text: str, suite: str) -> str | None:
    for line in text.splitlines():
        parts = line.split("#", 1)[0].split()
        if len(parts) >= 3 and parts[0] == "deb":
            rest = [p for p in parts[1:] if not p.startswith("[")]
            if len(rest) >= 2 and rest[1] == suite:
                return rest[0]
    return None


# -- rootfs and image ---------------------------------------------------------------------


def ensure_rootfs_tarball(
    packages: tuple[str, ...] = BASE_PACKAGES,
    cache_dir: Path | None = None,
    progress: ProgressCallback | None = None,
) -> Path:
    """Return the cached rootfs tarball for ``packages``, running debootstrap when absent."""
    cache = (cache_dir or build_cache_dir()) / "rootfs"
    tarball = cache / f"{SUITE}-{VARIANT}-{base_packages_key(packages)}.tar"
    if tarball.is_file():
        return tarball
    _require_debootstrap()
    cache.mkdir(parents=True, exist_ok=True)
    mirror = find_debian_mirror()
    with tempfile.TemporaryDirectory(prefix="oh-rootfs-", dir=cache) as tmp:
        rootfs = Path(tmp) / "rootfs"
        command = [
            "debootstrap",
            f"--variant={VARIANT}",
            f"--include={','.join(packages)}",
            SUITE,
            str(rootfs),
            mirror,
        ]
        logger.info("Creating the sandbox root filesystem: %s", " ".join(command))
        _run_streaming(command, progress, "debootstrap")
        # Leave apt caches out of the image; keep the mirror the host uses.
        for leftover in ("var/cache/apt/archives", "var/lib/apt/lists"):
            shutil.rmtree(rootfs / leftover, ignore_errors=True)
            (rootfs / leftover / "partial").mkdir(parents=True, exist_ok=True)
        partial = tarball.with_suffix(".tar.part")
        _run_streaming(
            ["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(partial), "."],
            progress,
            "tar",
        )
        partial.rename(tarball)
    return tarball


def ensure_base_image(
    builder: RuntimeBuilder,
    image: str = DEFAULT_BASE_IMAGE,
    packages: tuple[str, ...] = BASE_PACKAGES,
    force: bool = False,
    progress: ProgressCallback | None = None,
) -> str:
    """Make sure our debootstrap base exists under ``image``; return the image name."""
    keyed = keyed_base_image(packages)
    keyed_id = None if force else builder.image_id(keyed)
    if keyed_id is None:
        tarball = ensure_rootfs_tarball(packages, progress=progress)
        if progress:
            progress(f"Importing {tarball.name} as {keyed}")
        keyed_id = builder.import_rootfs(tarball, keyed, _IMPORT_CHANGES)
    if builder.image_id(image) != keyed_id:
        builder.tag(keyed, image)
    return image


def _require_debootstrap() -> None:
    if shutil.which("debootstrap"):
        return
    if os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        done = subprocess.run(
            ["apt-get", "install", "-y", "-q", "--no-install-recommends", "debootstrap"],
            capture_output=True,
            text=True,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        if done.returncode == 0 and shutil.which("debootstrap"):
            return
        logger.warning("apt-get install debootstrap failed: %s", done.stdout[-2000:])
    raise AgentRuntimeBuildError(
        "debootstrap is needed to make the sandbox base image: run "
        "`apt-get install -y debootstrap` as root, then build again."
    )


def _run_streaming(command: list[str], progress: ProgressCallback | None, what: str) -> None:
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        errors="replace",
    )
    assert proc.stdout is not None
    tail: list[str] = []
    for raw in proc.stdout:
        line = raw.rstrip("\n")
        tail = [*tail[-29:], line]
        logger.debug("[%s] %s", what, line)
        if progress:
            progress(line)
    if proc.wait() != 0:
        raise AgentRuntimeBuildError(f"{what} failed:\n" + "\n".join(tail))
