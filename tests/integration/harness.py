"""One real headless conversation, wired the way `python -m openhands.core.main` wires it.

``HeadlessRun`` builds an OpenHandsConfig for a temporary workspace and file store, points
the LLM at a :class:`ScriptedLLMServer` (LiteLLM over real HTTP), connects a LocalRuntime
and calls :func:`openhands.core.main.run_controller`: the real CodeActAgent, Memory,
AgentController and EventStream. A test can watch the stream while the run goes on
(``on_event``) to act like a user in the UI: confirm, reject, pause.
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from openhands.controller.state.state import State
from openhands.core.config import AgentConfig, OpenHandsConfig
from openhands.core.main import run_controller
from openhands.core.setup import create_runtime
from openhands.events.action import Action, MessageAction, NullAction
from openhands.events.event import Event, EventSource
from openhands.events.event_store import EventStore
from openhands.events.observation import AgentStateChangedObservation
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.runtime.base import Runtime
from openhands.storage.local import LocalFileStore
from tests.support.scripted_llm import ScriptedLLMServer

RUN_TIMEOUT = 60.0
requires_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="LocalRuntime needs tmux")
User = Callable[[EventStream, Event], None]


class HeadlessRun:
    """A temporary workspace and store, and the config of a headless run over them."""

    def __init__(self, tmp_path: Path, llm: ScriptedLLMServer, **llm_overrides: Any) -> None:
        self.tmp_path = tmp_path
        self.llm = llm
        self.workspace = tmp_path / "workspace"
        self.workspace.mkdir(exist_ok=True)
        self.store = tmp_path / "store"
        self.config = OpenHandsConfig(
            runtime="local",
            workspace_base=str(self.workspace),
            file_store="local",
            file_store_path=str(self.store),
            max_iterations=30,
            enable_browser=False,
        )
        llm_values = {"native_tool_calling": True, **llm_overrides}
        self.config.set_llm_config(llm.llm_config(**llm_values))
        self.config.set_agent_config(
            AgentConfig(enable_browsing=False, enable_jupyter=False, enable_plan_mode=False)
        )
        self.sid = f"it-{secrets.token_hex(4)}"
        self.runtime: Runtime | None = None  # the runtime of the current or last run

    @property
    def agent_config(self) -> AgentConfig:
        return self.config.get_agent_config(self.config.default_agent)

    def path(self, name: str) -> str:
        """An absolute path inside the workspace (LocalRuntime paths are host paths)."""
        return str(self.workspace / name)

    def run(
        self,
        task: str | None,
        *,
        user: User | None = None,
        fake_user_response: Callable[[State], str] | None = None,
        sid: str | None = None,
    ) -> State:
        """Run a conversation to an end state and return its State."""
        initial: Action = MessageAction(task) if task is not None else NullAction()
        return asyncio.run(
            asyncio.wait_for(
                self._run(initial, user, fake_user_response, sid or self.sid), RUN_TIMEOUT
            )
        )

    async def _run(
        self,
        initial: Action,
        user: User | None,
        fake_user_response: Callable[[State], str] | None,
        sid: str,
    ) -> State:
        runtime = create_runtime(self.config, sid=sid, headless_mode=True)
        self.runtime = runtime
        try:
            await runtime.connect()
        except BaseException:
            runtime.close()
            raise
        stream = runtime.event_stream
        if user is not None:
            stream.subscribe(EventStreamSubscriber.TEST, lambda e: user(stream, e), "test-user")
        try:
            state = await run_controller(
                self.config,
                initial,
                sid=sid,
                runtime=runtime,
                fake_user_response_fn=fake_user_response or (lambda _state: "Please go on."),
            )
        finally:
            # run_controller leaves a runtime it was given open, as the reference does.
            runtime.close()
            stream.close()
        assert state is not None
        return state

    def events(self, sid: str | None = None) -> list[Event]:
        """Everything the run published, read back from the file store."""
        store = EventStore(sid or self.sid, LocalFileStore(str(self.store)))
        return list(store.search_events())


def agent_actions(events: list[Event]) -> list[Action]:
    return [e for e in events if isinstance(e, Action) and e.source == EventSource.AGENT]


def state_changes(events: list[Event]) -> list[str]:
    return [e.agent_state for e in events if isinstance(e, AgentStateChangedObservation)]


def when_state(state: str, reply: Callable[[EventStream], None]) -> User:
    """A user who does ``reply`` each time the agent enters ``state``."""

    def user(stream: EventStream, event: Event) -> None:
        if isinstance(event, AgentStateChangedObservation) and event.agent_state == state:
            reply(stream)

    return user


def user_sets(stream: EventStream, new_state: str) -> None:
    from openhands.events.action import ChangeAgentStateAction

    stream.add_event(ChangeAgentStateAction(new_state), EventSource.USER)
