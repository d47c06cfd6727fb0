"""Which runtime image a RemoteRuntime starts, built by the Runtime API when missing
(remote-runtime.md §5).

Same tags and selection as a local build (runtime.md §12.2), asked of the service's registry
in the order source tag, lock tag, versioned tag. Unlike the local build there is no local
base image to make or inspect: the service resolves ``FROM`` itself.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from openhands.core.logger import openhands_logger as logger
from openhands.runtime.builder.base import ProgressCallback, RuntimeBuilder
from openhands.runtime.utils.runtime_build import BuildFromImageType, prep_build_folder
from openhands.runtime.utils.runtime_hash import (
    OH_VERSION,
    PROJECT_ROOT,
    get_hash_for_lock_files,
    get_hash_for_source_files,
    get_runtime_image_repo,
    get_tag_for_versioned_image,
)


def build_runtime_image_remotely(
    base_image: str,
    builder: RuntimeBuilder,
    platform: str | None = None,
    extra_deps: str | None = None,
    force_rebuild: bool = False,
    enable_browser: bool = True,
    progress: ProgressCallback | None = None,
    source_root: Path = PROJECT_ROOT,
) -> str:
    """Return ``<repo>:<source tag>``, having the service build it when it has none."""
    repo = get_runtime_image_repo()
    lock_tag = f"oh_v{OH_VERSION}_{get_hash_for_lock_files(base_image, enable_browser)}"
    source_image = f"{repo}:{lock_tag}_{get_hash_for_source_files(source_root)}"
    lock_image = f"{repo}:{lock_tag}"
    versioned_image = f"{repo}:{get_tag_for_versioned_image(base_image)}"

    known: dict[str, bool] = {}

    def exists(image: str) -> bool:
        if image not in known:
            known[image] = builder.image_exists(image)
        return known[image]

    if force_rebuild:
        build_from, from_image = BuildFromImageType.SCRATCH, base_image
    elif exists(source_image):
        logger.info("Reusing runtime image %s", source_image)
        return source_image
    elif exists(lock_image):
        build_from, from_image = BuildFromImageType.LOCK, lock_image
    elif exists(versioned_image):
        build_from, from_image = BuildFromImageType.VERSIONED, versioned_image
    else:
        build_from, from_image = BuildFromImageType.SCRATCH, base_image

    # A scratch build names all three; otherwise only the names the registry lacks.
    tags = [source_image] + [
        image
        for image in (lock_image, versioned_image)
        if build_from == BuildFromImageType.SCRATCH or not exists(image)
    ]
    logger.info(
        "Building runtime image %s remotely (%s, from %s)",
        source_image,
        build_from.value,
        from_image,
    )
    with tempfile.TemporaryDirectory(prefix="oh-remote-build-") as folder:
        prep_build_folder(
            Path(folder),
            from_image,
            build_from,
            extra_deps,
            source_root,
            enable_browser=enable_browser,
        )
        builder.build(Path(folder), tags, platform=platform, progress=progress)
    return source_image
