"""Build (or reuse) the sandbox runtime image.

Selection follows runtime.md §12.2 with the offline adaptation of §15: the base image is
local (made with debootstrap when it is our default), nothing is pulled, Python packages
come from wheels fetched on the host with the host's own pip configuration.

Command line (what `make` and CI call)::

    python -m openhands.runtime.utils.runtime_build [--base-image IMG] [--force-rebuild]
        [--no-enable-browser] [--enable-vscode] [--build-folder DIR --dry-run]
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from openhands.core.logger import openhands_logger as logger
from openhands.runtime.builder.base import ProgressCallback, RuntimeBuilder
from openhands.runtime.builder.base_image import (
    DEFAULT_BASE_IMAGE,
    build_cache_dir,
    ensure_base_image,
)
from openhands.runtime.errors import AgentRuntimeBuildError, AgentRuntimeImageNotFoundError
from openhands.runtime.utils.runtime_hash import (
    OH_VERSION,
    PROJECT_ROOT,
    RUNTIME_CONTAINER_DIR,
    get_hash_for_lock_files,
    get_hash_for_source_files,
    get_runtime_image_repo,
    get_runtime_image_repo_and_tag,  # noqa: F401  (public name of this module too)
    get_tag_for_versioned_image,
    iter_source_files,
    truncate_hash,
)
from openhands.runtime.utils.vscode_image import ensure_vscode_lock_image, vscode_lock_tag

REQUIREMENTS_LOCK = RUNTIME_CONTAINER_DIR / "requirements.lock"
# uv and the sandbox's uv tools (the `fetch` MCP server), installed outside the server's venv.
TOOLS_LOCK = RUNTIME_CONTAINER_DIR / "tools.lock"
DOCKERFILE_TEMPLATE = RUNTIME_CONTAINER_DIR / "Dockerfile.j2"


class BuildFromImageType(StrEnum):
    SCRATCH = "scratch"  # FROM the base image: user, venv, source
    VERSIONED = "versioned"  # FROM a runtime image of this version: deps again, source
    LOCK = "lock"  # FROM a runtime image with the same deps: source only


def build_runtime_image(
    base_image: str,
    runtime_builder: RuntimeBuilder,
    platform: str | None = None,
    extra_deps: str | None = None,
    build_folder: Path | None = None,
    dry_run: bool = False,
    force_rebuild: bool = False,
    extra_build_args: list[str] | None = None,
    enable_browser: bool = True,
    progress: ProgressCallback | None = None,
    source_root: Path = PROJECT_ROOT,
    enable_vscode: bool = False,
) -> str:
    """Return ``<repo>:<source_tag>``, building it only when it does not exist locally.

    ``source_root`` is the tree whose server sources go into the image (the repository).
    ``enable_vscode`` gives the VS Code variant instead (see ``vscode_image``)."""
    if enable_vscode and not dry_run:
        default_image = build_runtime_image(
            base_image,
            runtime_builder,
            platform=platform,
            extra_deps=extra_deps,
            build_folder=build_folder,
            force_rebuild=force_rebuild,
            extra_build_args=extra_build_args,
            enable_browser=enable_browser,
            progress=progress,
            source_root=source_root,
        )
        return _build_vscode_variant(
            default_image, runtime_builder, extra_deps, source_root, progress
        )
    base_image = _ensure_base(base_image, runtime_builder, progress)
    base_id = runtime_builder.image_id(base_image)
    repo = get_runtime_image_repo()
    lock_tag = f"oh_v{OH_VERSION}_{get_hash_for_lock_files(base_image, enable_browser, base_id)}"
    source_tag = f"{lock_tag}_{get_hash_for_source_files(source_root)}"
    versioned_tag = get_tag_for_versioned_image(base_image)
    source_image, lock_image = f"{repo}:{source_tag}", f"{repo}:{lock_tag}"
    versioned_image = f"{repo}:{versioned_tag}"

    if force_rebuild:
        build_from, from_image = BuildFromImageType.SCRATCH, base_image
    elif runtime_builder.image_exists(source_image):
        logger.info("Reusing runtime image %s", source_image)
        return source_image
    elif runtime_builder.image_exists(lock_image):
        build_from, from_image = BuildFromImageType.LOCK, lock_image
    elif runtime_builder.image_exists(versioned_image):
        build_from, from_image = BuildFromImageType.VERSIONED, versioned_image
    else:
        build_from, from_image = BuildFromImageType.SCRATCH, base_image

    # A scratch build names all three; otherwise only names that do not exist yet are added.
    tags = [source_image] + [
        tag
        for tag in (lock_image, versioned_image)
        if build_from == BuildFromImageType.SCRATCH or not runtime_builder.image_exists(tag)
    ]
    logger.info(
        "Building runtime image %s (%s, from %s)", source_image, build_from.value, from_image
    )

    if progress is not None and not dry_run:
        progress(f"Building runtime image {source_image} from {from_image}")
    with _build_dir(build_folder) as folder:
        prep_build_folder(
            folder, from_image, build_from, extra_deps, source_root, enable_browser=enable_browser
        )
        if dry_run:
            return source_image
        runtime_builder.build(
            path=folder,
            tags=tags,
            platform=platform,
            extra_build_args=extra_build_args,
            build_args={
                "OPENHANDS_RUNTIME_VERSION": OH_VERSION,
                "OPENHANDS_RUNTIME_BUILD_TIME": datetime.now(UTC).isoformat(),
            },
            progress=progress,
        )
    return source_image


def _build_vscode_variant(
    default_image: str,
    builder: RuntimeBuilder,
    extra_deps: str | None,
    source_root: Path,
    progress: ProgressCallback | None,
) -> str:
    """``<repo>:<lock_tag>_vscode<hash>_<source_hash>``: the VS Code layer sits under the
    source layer, so a source change rebuilds in seconds here too."""
    repo, default_tag = default_image.rsplit(":", 1)
    lock_tag, source_hash = default_tag.rsplit("_", 1)
    lock_image = f"{repo}:{lock_tag}"
    # The lock image is the cheaper base; the default image serves if it was removed.
    vscode_base = lock_image if builder.image_exists(lock_image) else default_image
    with _build_dir(None) as folder:
        vscode_lock = ensure_vscode_lock_image(vscode_base, builder, folder, progress)
    image = f"{vscode_lock}_{source_hash}"
    if builder.image_exists(image):
        logger.info("Reusing runtime image %s", image)
        return image
    with _build_dir(None) as folder:
        prep_build_folder(folder, vscode_lock, BuildFromImageType.LOCK, extra_deps, source_root)
        builder.build(
            path=folder,
            tags=[image],
            build_args={
                "OPENHANDS_RUNTIME_VERSION": OH_VERSION,
                "OPENHANDS_RUNTIME_BUILD_TIME": datetime.now(UTC).isoformat(),
            },
            progress=progress,
        )
    return image


def vscode_variant_name(default_image: str) -> str:
    """The name ``build_runtime_image(..., enable_vscode=True)`` gives the VS Code variant of
    ``default_image`` (a ``<repo>:<lock_tag>_<source_hash>`` runtime image), so a caller can
    tell whether it exists without building anything."""
    repo, default_tag = default_image.rsplit(":", 1)
    lock_tag, source_hash = default_tag.rsplit("_", 1)
    return f"{repo}:{vscode_lock_tag(lock_tag)}_{source_hash}"


def _ensure_base(
    base_image: str, builder: RuntimeBuilder, progress: ProgressCallback | None
) -> str:
    if base_image == DEFAULT_BASE_IMAGE:
        return ensure_base_image(builder, base_image, progress=progress)
    if not builder.image_exists(base_image):
        raise AgentRuntimeImageNotFoundError(
            f"Base image {base_image} does not exist locally and is never pulled. Build or load "
            f"it first, or leave sandbox.base_container_image unset to use {DEFAULT_BASE_IMAGE}."
        )
    return base_image


class _build_dir:
    """The given folder (kept), or a temporary one (removed afterwards)."""

    def __init__(self, folder: Path | None) -> None:
        self._given = folder
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> Path:
        if self._given is not None:
            self._given.mkdir(parents=True, exist_ok=True)
            return self._given
        self._tmp = tempfile.TemporaryDirectory(prefix="oh-runtime-build-")
        return Path(self._tmp.name)

    def __exit__(self, *exc: object) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()


# -- build context ---------------------------------------------------------------------------


def prep_build_folder(
    build_folder: Path,
    base_image: str,
    build_from: BuildFromImageType,
    extra_deps: str | None = None,
    source_root: Path = PROJECT_ROOT,
    enable_browser: bool = True,
) -> None:
    """Lay out Dockerfile, requirements.lock, wheels/ and tool-wheels/ (when deps are
    installed) and code/."""
    for stale in ("code", "wheels", "tool-wheels"):
        shutil.rmtree(build_folder / stale, ignore_errors=True)
    dockerfile = render_dockerfile(base_image, build_from, extra_deps, enable_browser)
    (build_folder / "Dockerfile").write_text(dockerfile)
    shutil.copy2(REQUIREMENTS_LOCK, build_folder / "requirements.lock")
    if build_from != BuildFromImageType.LOCK:
        _link_tree(ensure_wheels(), build_folder / "wheels")
        _link_tree(ensure_tool_wheels(), build_folder / "tool-wheels")
    copy_server_source(build_folder / "code", source_root)


def render_dockerfile(
    base_image: str,
    build_from: BuildFromImageType,
    extra_deps: str | None = None,
    enable_browser: bool = True,
) -> str:
    env = Environment(
        loader=FileSystemLoader(DOCKERFILE_TEMPLATE.parent),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    template = env.get_template(DOCKERFILE_TEMPLATE.name)
    return template.render(
        base_image=base_image,
        build_from=build_from.value,
        extra_deps=extra_deps or "",
        enable_browser=enable_browser,
    )


def copy_server_source(dest: Path, root: Path = PROJECT_ROOT) -> None:
    for relative in iter_source_files(root):
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / relative, target)


def ensure_wheels(lock_file: Path = REQUIREMENTS_LOCK, cache_dir: Path | None = None) -> Path:
    """Wheels for every pinned requirement, fetched once per lock content with the host pip
    (and so with the host's index, certificate and find-links settings)."""
    key = truncate_hash(hashlib.md5(lock_file.read_bytes()).hexdigest())
    wheel_dir = (cache_dir or build_cache_dir()) / "wheels" / key
    done_marker = wheel_dir / ".complete"
    if done_marker.is_file():
        return wheel_dir
    wheel_dir.mkdir(parents=True, exist_ok=True)
    pip = _host_pip()
    command = [*pip, "wheel", "--no-deps", "-r", str(lock_file), "-w", str(wheel_dir)]
    logger.info("Fetching sandbox wheels: %s", " ".join(command))
    done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise AgentRuntimeBuildError(
            "Could not fetch the sandbox's Python wheels with the host pip "
            f"({' '.join(command)}):\n{(done.stdout + done.stderr)[-3000:]}"
        )
    done_marker.write_text(lock_file.name + "\n")
    return wheel_dir


def ensure_tool_wheels(cache_dir: Path | None = None) -> Path:
    """Wheels of ``tools.lock`` (uv, mcp-server-fetch and its dependencies), cached apart from
    the server's because the build installs them in a stage of their own."""
    return ensure_wheels(TOOLS_LOCK, cache_dir)


def _host_pip() -> list[str]:
    """A pip of a CPython 3.11 interpreter: the sandbox runs Debian bookworm's Python 3.11,
    so wheels built or downloaded here install there unchanged."""
    candidates = [sys.executable, "python3.11", "python3"]
    for candidate in candidates:
        exe = shutil.which(candidate) or candidate
        probe = subprocess.run(
            [exe, "-c", "import sys, pip; print(sys.version_info[:2] == (3, 11))"],
            capture_output=True,
            text=True,
        )
        if probe.returncode == 0 and probe.stdout.strip() == "True":
            return [exe, "-m", "pip"]
    raise AgentRuntimeBuildError(
        "No Python 3.11 with pip found on the host (tried "
        + ", ".join(candidates)
        + "); it is needed to fetch the sandbox's wheels."
    )


def _link_tree(source: Path, dest: Path) -> None:
    """Hard-link (or copy across filesystems) the files of ``source`` into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for item in source.iterdir():
        if item.name.startswith("."):
            continue
        try:
            (dest / item.name).hardlink_to(item)
        except OSError:
            shutil.copy2(item, dest / item.name)


# -- command line --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build or reuse the sandbox runtime image.")
    parser.add_argument("--base-image", default=DEFAULT_BASE_IMAGE)
    parser.add_argument("--build-folder", type=Path, default=None)
    parser.add_argument("--dry-run", action="store_true", help="only prepare --build-folder")
    parser.add_argument("--force-rebuild", action="store_true")
    parser.add_argument("--no-enable-browser", dest="enable_browser", action="store_false")
    parser.add_argument("--enable-vscode", action="store_true", help="the VS Code variant")
    parser.add_argument("--platform", default=None)
    args = parser.parse_args(argv)

    # Imported here: the docker SDK is a host-only dependency.
    from openhands.runtime.builder.docker import DockerRuntimeBuilder

    try:
        image = build_runtime_image(
            args.base_image,
            DockerRuntimeBuilder(),
            platform=args.platform,
            build_folder=args.build_folder,
            dry_run=args.dry_run,
            force_rebuild=args.force_rebuild,
            enable_browser=args.enable_browser,
            enable_vscode=args.enable_vscode,
            progress=lambda line: print(line, file=sys.stderr, flush=True),
        )
    except (AgentRuntimeBuildError, AgentRuntimeImageNotFoundError) as exc:
        print(f"runtime_build: {exc}", file=sys.stderr)
        return 1
    print(image)
    return 0


if __name__ == "__main__":
    sys.exit(main())
