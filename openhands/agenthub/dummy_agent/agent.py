"""DummyAgent: a fixed script of actions and no LLM, for end-to-end tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from openhands.controller.agent import Agent
from openhands.core.logger import openhands_logger as logger
from openhands.events.action import (
    Action,
    AgentFinishAction,
    AgentRejectAction,
    CmdRunAction,
    FileReadAction,
    FileWriteAction,
    MessageAction,
)
from openhands.events.observation import (
    CmdOutputObservation,
    FileReadObservation,
    FileWriteObservation,
    Observation,
)
from openhands.events.serialization import event_from_dict, event_to_dict

if TYPE_CHECKING:
    from openhands.controller.state.state import State
    from openhands.core.config import AgentConfig
    from openhands.llm.llm_registry import LLMRegistry

HELLO_SCRIPT = 'echo "Hello, World!"'
_VOLATILE_KEYS = ("id", "timestamp", "cause", "source", "message")


@dataclass
class ScriptedStep:
    action: Action
    # What the previous step should have produced (checked, mismatches only logged).
    expected_observations: list[Observation] = field(default_factory=list)


def default_script() -> list[ScriptedStep]:
    return [
        ScriptedStep(MessageAction("Time to get started!")),
        ScriptedStep(
            CmdRunAction(command='echo "foo"'),
            [CmdOutputObservation("foo", command='echo "foo"')],
        ),
        ScriptedStep(
            FileWriteAction(path="hello.sh", content=HELLO_SCRIPT),
            [FileWriteObservation(content="", path="hello.sh")],
        ),
        ScriptedStep(
            FileReadAction(path="hello.sh"),
            [FileReadObservation(HELLO_SCRIPT, path="hello.sh")],
        ),
        ScriptedStep(
            CmdRunAction(command="bash hello.sh"),
            [CmdOutputObservation("Hello, World!", command="bash hello.sh")],
        ),
        ScriptedStep(AgentRejectAction(outputs={"reason": "scripted rejection"})),
        ScriptedStep(AgentFinishAction(outputs={}, thought="Task completed")),
    ]


class DummyAgent(Agent):
    """Returns the script's step for the current iteration and finishes once it is over.

    The controller counts the iteration before calling ``step``, so iteration 1 gets the
    first scripted action. Fresh action objects are returned every time.
    """

    VERSION = "1.0"

    def __init__(self, config: AgentConfig, llm_registry: LLMRegistry) -> None:
        super().__init__(config, llm_registry)
        self.script = default_script()

    def step(self, state: State) -> Action:
        index = max(0, state.iteration_flag.current_value - 1)
        if index >= len(self.script):
            return AgentFinishAction()
        self._check_previous_observations(state, index)
        return _fresh(self.script[index].action)

    def _check_previous_observations(self, state: State, index: int) -> None:
        if index == 0:
            return
        expected = self.script[index - 1].expected_observations
        if not expected:
            return
        actual = list(state.view)[-len(expected) :]
        for want, got in zip(expected, actual, strict=False):
            if _comparable(want) != _comparable(got):
                logger.warning("DummyAgent expected %s, got %s", want, got)


def _fresh(action: Action) -> Action:
    """A copy without id/source, so a step may be returned again."""
    data = {k: v for k, v in event_to_dict(action).items() if k not in _VOLATILE_KEYS}
    copy = event_from_dict(data)
    assert isinstance(copy, Action)
    return copy


def _comparable(event: Observation | object) -> dict:
    if not isinstance(event, Observation):
        return {}
    return {k: v for k, v in event_to_dict(event).items() if k not in _VOLATILE_KEYS}
