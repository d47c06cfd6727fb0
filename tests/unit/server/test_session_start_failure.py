"""A conversation closed (stopped or deleted) while it starts: its start's failure is the
expected end of that start, not an error for the user or the log."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.server.session.agent_session import AgentSession
from openhands.server.session.conversation_init_data import ConversationInitData
from openhands.server.session.delivery import RoomDelivery
from openhands.server.session.session import Session
from openhands.storage.memory import InMemoryFileStore


class SilentSio:
    async def emit(self, *args: Any, **kwargs: Any) -> None:
        return None


class StartFails(AgentSession):
    """A start that raises; ``close_first`` closes the session before it does."""

    close_first = False

    async def start(self, *args: Any, **kwargs: Any) -> None:
        if self.close_first:
            self._closed = True
        raise RuntimeError("Container openhands-runtime-x no longer exists")


class ClosedThenFails(StartFails):
    close_first = True


def _session(cls: type[AgentSession]) -> Session:
    return Session(
        "c1",
        OpenHandsConfig(),
        InMemoryFileStore(),
        RoomDelivery(SilentSio(), "c1"),
        agent_session_cls=cls,
    )


@pytest.mark.parametrize(("cls", "reported"), [(StartFails, True), (ClosedThenFails, False)])
async def test_a_start_failure_is_reported_only_when_nobody_closed_the_session(
    cls: type[AgentSession], reported: bool, caplog: pytest.LogCaptureFixture
) -> None:
    session = _session(cls)
    with caplog.at_level(logging.INFO):
        await session.initialize_agent(ConversationInitData())
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert bool(errors) is reported
    queued = [session._queue.get_nowait() for _ in range(session._queue.qsize())]
    assert (
        any("Failed to create agent session" in str(p.get("message")) for p in queued) is reported
    )
    session._sender.cancel()
