"""The sandbox-side plugin seam: something the action server starts next to bash (§3.3 step 6)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar


class Plugin(ABC):
    name: ClassVar[str]

    @abstractmethod
    async def initialize(self, username: str, work_dir: str) -> None:
        """Start whatever the plugin needs; raise if it cannot work."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Stop the plugin's processes (default: nothing to stop)."""
