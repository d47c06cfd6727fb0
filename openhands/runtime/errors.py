"""Runtime errors: the shared ones from ``openhands.core.exceptions`` plus two the image
build raises, so callers can catch either the specific or the general type."""

from __future__ import annotations

from openhands.core.exceptions import (
    AgentRuntimeBuildError,
    AgentRuntimeDisconnectedError,
    AgentRuntimeError,
    AgentRuntimeNotFoundError,
    AgentRuntimeTimeoutError,
    AgentRuntimeUnavailableError,
)


class AgentRuntimeEngineError(AgentRuntimeBuildError):
    """No container engine answers; the message says what to run to get one."""


class AgentRuntimeImageNotFoundError(AgentRuntimeError):
    """A configured image does not exist locally (we never pull)."""


__all__ = [
    "AgentRuntimeBuildError",
    "AgentRuntimeDisconnectedError",
    "AgentRuntimeEngineError",
    "AgentRuntimeError",
    "AgentRuntimeImageNotFoundError",
    "AgentRuntimeNotFoundError",
    "AgentRuntimeTimeoutError",
    "AgentRuntimeUnavailableError",
]
