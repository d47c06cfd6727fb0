"""The Agent base class and its registry."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from openhands.controller.agent import Agent, register_custom_agents
from openhands.controller.state.state import State
from openhands.core.config import AgentConfig, OpenHandsConfig
from openhands.core.exceptions import AgentAlreadyRegisteredError, AgentNotRegisteredError
from openhands.events.action import Action, AgentFinishAction
from tests.unit.controller.harness import llm_registry


class MinimalAgent(Agent):
    def step(self, state: State) -> Action:
        self._complete = True
        return AgentFinishAction()


class OtherAgent(MinimalAgent):
    pass


@pytest.fixture(autouse=True)
def _clean_registry() -> Iterator[None]:
    saved = dict(Agent._registry)
    yield
    Agent._registry.clear()
    Agent._registry.update(saved)


def _tool(name: str) -> dict:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}


def test_registry() -> None:
    Agent.register("Minimal", MinimalAgent)
    Agent.register("Minimal", MinimalAgent)  # the same class again is fine
    assert Agent.get_cls("Minimal") is MinimalAgent
    assert "Minimal" in Agent.list_agents()
    with pytest.raises(AgentAlreadyRegisteredError):
        Agent.register("Minimal", OtherAgent)
    with pytest.raises(AgentNotRegisteredError):
        Agent.get_cls("Nobody")


def test_agent_uses_the_registrys_agent_llm() -> None:
    registry = llm_registry()
    agent = MinimalAgent(AgentConfig(), registry)
    assert agent.llm is registry.get_llm("agent")
    assert agent.llm_registry is registry
    assert agent.name == "MinimalAgent"


def test_complete_and_reset() -> None:
    agent = MinimalAgent(AgentConfig(), llm_registry())
    assert not agent.complete
    agent.step(State())
    assert agent.complete
    agent.reset()
    assert not agent.complete


def test_mcp_tools_are_appended_once() -> None:
    agent = MinimalAgent(AgentConfig(), llm_registry())
    agent.tools = [_tool("execute_bash")]
    agent.set_mcp_tools([_tool("fetch"), _tool("execute_bash"), _tool("fetch"), {"bad": 1}])
    assert [t["function"]["name"] for t in agent.tools] == ["execute_bash", "fetch"]
    assert list(agent.mcp_tools) == ["fetch"]


class _Prompts:
    def __init__(self) -> None:
        self.cli_modes: list[bool] = []

    def get_system_message(self, cli_mode: bool) -> str:
        self.cli_modes.append(cli_mode)
        return "system prompt"


def test_system_message_comes_from_the_prompt_manager() -> None:
    agent = MinimalAgent(AgentConfig(cli_mode=True), llm_registry())
    assert agent.get_system_message() is None
    with pytest.raises(RuntimeError):
        _ = agent.prompt_manager
    prompts = _Prompts()
    agent._prompt_manager = prompts
    agent.tools = [_tool("think")]
    message = agent.get_system_message()
    assert message is not None
    assert message.content == "system prompt"
    assert message.tools == [_tool("think")]
    assert message.agent_class == "MinimalAgent"
    assert prompts.cli_modes == [True]
    assert agent.prompt_manager is prompts


# --- custom agents from the config -----------------------------------------------------------

_CUSTOM_AGENTS_MODULE = """
from openhands.controller.agent import Agent
from openhands.events.action import AgentFinishAction


class HelperAgent(Agent):
    def step(self, state):
        return AgentFinishAction()


class NotAnAgent:
    pass
"""


def _config_with_classpaths(**classpaths: str) -> OpenHandsConfig:
    config = OpenHandsConfig()
    for name, classpath in classpaths.items():
        config.set_agent_config(AgentConfig(classpath=classpath), name)
    return config


@pytest.fixture
def custom_agents_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "custom_agents_for_registry.py").write_text(_CUSTOM_AGENTS_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "custom_agents_for_registry"


def test_custom_agents_register_under_their_section_name(custom_agents_module: str) -> None:
    config = _config_with_classpaths(Helper=f"{custom_agents_module}:HelperAgent")
    register_custom_agents(config)
    register_custom_agents(config)  # every builder calls it: again is a no-op
    assert Agent.get_cls("Helper").__name__ == "HelperAgent"


def test_a_broken_custom_agent_is_logged_and_skipped(
    custom_agents_module: str, caplog: pytest.LogCaptureFixture
) -> None:
    config = _config_with_classpaths(
        Missing="no_such_module_anywhere:Agent",
        Plain=f"{custom_agents_module}:NotAnAgent",
        Helper=f"{custom_agents_module}:HelperAgent",
    )
    with caplog.at_level(logging.ERROR, logger="openhands"):
        register_custom_agents(config)
    assert "Helper" in Agent.list_agents()
    assert "Missing" not in Agent.list_agents()
    assert "Plain" not in Agent.list_agents()
    assert "Cannot register agent 'Missing'" in caplog.text
    assert "NotAnAgent is not an Agent" in caplog.text
