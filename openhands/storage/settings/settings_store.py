"""The SettingsStore seam: where one user's Settings are kept."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from openhands.storage.data_models.settings import Settings

if TYPE_CHECKING:
    from openhands.storage.factory import FileStoreConfig


class SettingsStore(ABC):
    @abstractmethod
    async def load(self) -> Settings | None:
        """The stored settings, or None when nothing was stored yet."""

    @abstractmethod
    async def store(self, settings: Settings) -> None:
        """Replace the stored settings (secret values included)."""

    @classmethod
    @abstractmethod
    async def get_instance(cls, config: FileStoreConfig, user_id: str | None) -> SettingsStore:
        """The store of ``user_id`` under the given configuration."""
