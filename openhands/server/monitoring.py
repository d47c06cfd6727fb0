"""``MonitoringListener``: the server's hook for metrics (extension point
``ServerConfig.monitoring_listener_class``). Every callback is a no-op here; a deployment
subclasses it and names the subclass in its server config.

Callbacks are made by the server: ``on_create_conversation`` when POST /api/conversations
creates one, ``on_agent_session_start`` after a conversation's agent session started (or
failed to), ``on_session_event`` for each event a running conversation publishes (on the
event stream's worker thread). A failing callback is logged and never stops the caller.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openhands.core.config import OpenHandsConfig
    from openhands.events.event import Event

logger = logging.getLogger(__name__)


class MonitoringListener:
    def on_session_event(self, event: Event) -> None:
        """One event of a running conversation."""

    def on_agent_session_start(self, success: bool, duration: float) -> None:
        """An agent session finished starting; ``duration`` in seconds."""

    def on_create_conversation(self) -> None:
        """A conversation was created."""

    @classmethod
    def get_instance(cls, config: OpenHandsConfig) -> MonitoringListener:
        return cls()


def notify(callback: Callable[..., None], *args: object) -> None:
    """Call a listener callback; its failure is logged and goes no further."""
    try:
        callback(*args)
    except Exception:
        logger.exception("Monitoring listener failed (%s)", callback.__name__)
