"""The SecretsStore seam: where one user's provider tokens and custom secrets are kept."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from openhands.storage.data_models.user_secrets import UserSecrets

if TYPE_CHECKING:
    from openhands.storage.factory import FileStoreConfig


class SecretsStore(ABC):
    @abstractmethod
    async def load(self) -> UserSecrets | None:
        """The stored secrets, or None when nothing was stored yet."""

    @abstractmethod
    async def store(self, secrets: UserSecrets) -> None:
        """Replace the stored secrets (values included)."""

    @classmethod
    @abstractmethod
    async def get_instance(cls, config: FileStoreConfig, user_id: str | None) -> SecretsStore:
        """The store of ``user_id`` under the given configuration."""
