"""The image-builder seam: what the runtime needs from a container engine to make images."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path

# Receives each line of build output as it arrives (the UI shows it as
# STATUS$BUILDING_RUNTIME progress).
ProgressCallback = Callable[[str], None]


class RuntimeBuilder(ABC):
    """Builds, imports and inspects images. Never pulls from a registry."""

    @abstractmethod
    def build(
        self,
        path: Path,
        tags: list[str],
        platform: str | None = None,
        extra_build_args: list[str] | None = None,
        build_args: dict[str, str] | None = None,
        progress: ProgressCallback | None = None,
    ) -> str:
        """Build the context at ``path``; apply every tag; return the first tag."""

    @abstractmethod
    def image_exists(self, image_name: str, pull_from_repo: bool = False) -> bool:
        """Whether ``image_name`` exists locally. ``pull_from_repo`` is accepted and ignored."""

    @abstractmethod
    def image_id(self, image_name: str) -> str | None:
        """The local image id of ``image_name``, or None when it is absent."""

    @abstractmethod
    def tag(self, source: str, target: str) -> None:
        """Give the local image ``source`` the extra name ``target``."""

    @abstractmethod
    def import_rootfs(
        self, tarball: Path, image_name: str, changes: list[str] | None = None
    ) -> str:
        """Create ``image_name`` from a root filesystem tarball; return its id."""
