"""Shared server types of the reference's ``openhands.server.types``.

``AppMode`` is the app mode of ``ServerConfig``; ``ServerConfigInterface`` is the abstract
side of ``ServerConfig`` (``openhands.server.server_config``); ``MissingSettingsError`` and
``LLMAuthenticationError`` are the bases of the domain errors ``SettingsRequiredError`` and
``LLMKeyMissingError`` (``openhands.server.errors``), so either name catches them.
Nothing here imports beyond the standard library.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import Enum
from typing import Any, ClassVar, Protocol


class AppMode(Enum):
    OSS = "oss"
    SAAS = "saas"


class ServerConfigInterface(ABC):
    """What every server configuration offers (the extension point ``config_cls`` replaces
    the implementation, ``openhands.server.config.server_config.ServerConfig``)."""

    CONFIG_PATH: ClassVar[str | None] = None
    APP_MODE: ClassVar[AppMode] = AppMode.OSS
    POSTHOG_CLIENT_KEY: ClassVar[str] = ""
    GITHUB_CLIENT_ID: ClassVar[str] = ""
    ATTACH_SESSION_MIDDLEWARE_PATH: ClassVar[str] = ""

    @abstractmethod
    def verify_config(self) -> None:
        """Raise when the configuration cannot work."""

    @abstractmethod
    def get_config(self) -> dict[str, Any]:
        """The body of GET /api/options/config."""


class SessionMiddlewareInterface(Protocol):
    """A middleware that attaches a session to requests (the reference's ASGI contract)."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None: ...


class MissingSettingsError(ValueError):
    """The caller has no stored settings, so no conversation can start."""


class LLMAuthenticationError(ValueError):
    """The caller's settings have no usable LLM API key."""
