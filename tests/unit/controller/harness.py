"""A small world for driving the real AgentController over a real EventStream.

- ``ScriptedAgent``: an Agent whose ``step`` plays a script (actions, exceptions, callables).
- ``FakeRuntime`` / ``FakeMemory``: stream subscribers that answer like the runtime and the
  memory do (the runtime honours ``confirmation_state`` exactly as the real one does).
- ``World``: wires them with a controller and waits for the stream to go quiet.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Callable
from typing import Any

from openhands.controller.agent import Agent
from openhands.controller.agent_controller import AgentController
from openhands.controller.state.state import State
from openhands.core.config import AgentConfig, OpenHandsConfig
from openhands.core.schema import AgentState
from openhands.events.action import (
    Action,
    ActionConfirmationStatus,
    AgentFinishAction,
    CmdRunAction,
    MessageAction,
    RecallAction,
    SystemMessageAction,
)
from openhands.events.event import Event, EventSource
from openhands.events.observation import (
    AgentStateChangedObservation,
    CmdOutputObservation,
    NullObservation,
    Observation,
    SuccessObservation,
    UserRejectObservation,
)
from openhands.events.stream import EventStream, EventStreamSubscriber
from openhands.llm.llm_registry import LLMRegistry
from openhands.storage.memory import InMemoryFileStore

ScriptItem = Action | BaseException | Callable[[State], Action | None] | None

_REGISTRY: LLMRegistry | None = None


def llm_registry() -> LLMRegistry:
    """One real registry for the whole test session (building it imports LiteLLM)."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = LLMRegistry(OpenHandsConfig())
    return _REGISTRY


class ScriptedAgent(Agent):
    """Plays ``script`` one item per step; finishes when the script runs out."""

    system_prompt = "You are a scripted test agent."
    default_script: list[ScriptItem] = []

    def __init__(self, config: AgentConfig, llm_registry: LLMRegistry) -> None:
        super().__init__(config, llm_registry)
        self.script: list[ScriptItem] = list(self.default_script)
        self.steps = 0
        self.resets = 0

    def step(self, state: State) -> Action:  # type: ignore[override]
        self.steps += 1
        if not self.script:
            return AgentFinishAction(outputs={"done": True})
        item = self.script.pop(0)
        if isinstance(item, BaseException):
            raise item
        if callable(item):
            return item(state)  # type: ignore[return-value]
        return copy.deepcopy(item)  # type: ignore[return-value]

    def reset(self) -> None:
        super().reset()
        self.resets += 1

    def get_system_message(self) -> SystemMessageAction | None:
        return SystemMessageAction(content=self.system_prompt, agent_class=self.name)


class FakeRuntime:
    """Answers runnable actions the way Runtime.run_action does, and records what ran."""

    def __init__(self, stream: EventStream) -> None:
        self.stream = stream
        self.executed: list[Action] = []
        self.received: list[Action] = []
        stream.subscribe(EventStreamSubscriber.RUNTIME, self.on_event, "fake-runtime")

    def on_event(self, event: Event) -> None:
        if not isinstance(event, Action) or not event.runnable:
            return
        self.received.append(event)
        state = getattr(event, "confirmation_state", None)
        if state == ActionConfirmationStatus.AWAITING_CONFIRMATION:
            return
        if state == ActionConfirmationStatus.REJECTED:
            observation: Observation = UserRejectObservation(
                "Action has been rejected by the user! Waiting for further user input."
            )
        else:
            self.executed.append(event)
            observation = self._run(event)
        observation.cause = event.id
        observation.tool_call_metadata = event.tool_call_metadata
        self.stream.add_event(observation, event.source or EventSource.AGENT)

    @staticmethod
    def _run(action: Action) -> Observation:
        if isinstance(action, CmdRunAction):
            return CmdOutputObservation(content="ok", command=action.command, exit_code=0)
        return SuccessObservation(content=f"ran {action.action}")


class FakeMemory:
    """Answers every RecallAction with a NullObservation, as memory does with no microagents."""

    def __init__(self, stream: EventStream) -> None:
        self.stream = stream
        self.recalls: list[RecallAction] = []
        stream.subscribe(EventStreamSubscriber.MEMORY, self.on_event, "fake-memory")

    def on_event(self, event: Event) -> None:
        if isinstance(event, RecallAction):
            self.recalls.append(event)
            answer = NullObservation("")
            answer.cause = event.id
            self.stream.add_event(answer, EventSource.ENVIRONMENT)


def wait_until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError("condition not reached in time")


class World:
    """A stream, its neighbours and (once ``start``ed) a controller."""

    def __init__(self, sid: str = "conv") -> None:
        self.sid = sid
        self.file_store = InMemoryFileStore()
        self.stream = EventStream(sid, self.file_store)
        self.runtime = FakeRuntime(self.stream)
        self.memory = FakeMemory(self.stream)
        self.controller: AgentController | None = None
        self.status_calls: list[tuple[str, Any, str]] = []

    def make_agent(
        self, script: list[ScriptItem] | None = None, agent_cls: type[ScriptedAgent] = ScriptedAgent
    ) -> ScriptedAgent:
        agent = agent_cls(AgentConfig(), llm_registry())
        if script is not None:
            agent.script = list(script)
        return agent

    def start(
        self,
        script: list[ScriptItem] | None = None,
        agent: ScriptedAgent | None = None,
        with_status_callback: bool = False,
        **kwargs: Any,
    ) -> AgentController:
        kwargs.setdefault("iteration_delta", 10)
        self.controller = AgentController(
            agent=agent or self.make_agent(script),
            event_stream=self.stream,
            conversation_stats=kwargs.pop("conversation_stats", None),
            sid=self.sid,
            file_store=self.file_store,
            status_callback=self._status if with_status_callback else None,
            **kwargs,
        )
        return self.controller

    def _status(self, kind: str, status: Any, message: str) -> None:
        self.status_calls.append((kind, status, message))

    @property
    def agent(self) -> ScriptedAgent:
        assert self.controller is not None
        return self.controller.agent  # type: ignore[return-value]

    def events(self) -> list[Event]:
        return list(self.stream.search_events())

    def user_says(self, text: str) -> None:
        self.stream.add_event(MessageAction(content=text), EventSource.USER)

    def user_sets_state(self, state: AgentState) -> None:
        from openhands.events.action import ChangeAgentStateAction

        self.stream.add_event(ChangeAgentStateAction(state.value), EventSource.USER)

    def settle(self, quiet: float = 0.15, timeout: float = 5.0) -> None:
        """Wait until no new event was added for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        last = self.stream.get_latest_event_id()
        last_change = time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.02)
            current = self.stream.get_latest_event_id()
            if current != last:
                last, last_change = current, time.monotonic()
            elif time.monotonic() - last_change >= quiet:
                return
        raise AssertionError("the stream never went quiet")

    def wait_for_state(self, state: AgentState, timeout: float = 5.0) -> None:
        assert self.controller is not None
        controller = self.controller
        wait_until(lambda: controller.get_agent_state() == state, timeout)

    def state_changes(self) -> list[str]:
        return [e.agent_state for e in self.events() if isinstance(e, AgentStateChangedObservation)]

    def close(self) -> None:
        if self.controller is not None:
            asyncio.run(self.controller.close())
        self.stream.close()
