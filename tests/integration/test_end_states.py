"""How a headless run ends (agent.md §9.5 step 9, §11 item 30).

`run_controller` returns once the agent is finished, rejected, in error, paused or stopped.
A runtime that dies under the agent must end the run in ERROR through the status
callback that `run_controller` installs, not leave it waiting for an observation forever.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from openhands.core.schema import AgentState
from openhands.events.event import Event
from openhands.events.observation import AgentStateChangedObservation, CmdOutputObservation
from openhands.events.stream import EventStream
from tests.integration.harness import HeadlessRun, requires_tmux, state_changes, user_sets
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

pytestmark = requires_tmux


def test_a_dead_runtime_ends_the_run_in_error(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    scripted_llm.push(s.tool_call("execute_bash", {"command": "true", "security_risk": "LOW"}))

    def kill_the_server(_stream: EventStream, event: Event) -> None:
        if isinstance(event, AgentStateChangedObservation) and event.agent_state == "running":
            server = run.runtime._server  # type: ignore[union-attr]
            server.process.kill()
            server.process.wait()

    state = run.run("Run true.", user=kill_the_server)

    assert state.agent_state == AgentState.ERROR
    assert state.last_error  # the runtime's message, for the user
    events = run.events()
    assert state_changes(events)[-1] == "error"
    assert not any(isinstance(e, CmdOutputObservation) for e in events)


def test_pausing_ends_a_headless_run(tmp_path: Path, scripted_llm: ScriptedLLMServer) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    scripted_llm.fallback = s.tool_call("think", {"thought": "Still thinking."})
    paused: list[bool] = []

    def pause_after_the_first_thought(stream: EventStream, event: Event) -> None:
        if type(event).__name__ == "AgentThinkObservation" and not paused:
            paused.append(True)
            user_sets(stream, AgentState.PAUSED.value)

    state = run.run("Think.", user=pause_after_the_first_thought)

    assert state.agent_state == AgentState.PAUSED
    assert state_changes(run.events())[-1] == "paused"


def test_run_controller_builds_its_agent_through_the_module_name(
    tmp_path: Path, scripted_llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Harnesses replace ``openhands.core.main.create_agent`` to run their own agent."""
    import openhands.core.main as headless
    from openhands.controller.agent import Agent
    from openhands.core.config import OpenHandsConfig
    from openhands.llm.llm_registry import LLMRegistry

    built: list[Agent] = []
    real_create_agent = headless.create_agent

    def recording_create_agent(config: OpenHandsConfig, llm_registry: LLMRegistry) -> Agent:
        agent = real_create_agent(config, llm_registry)
        built.append(agent)
        return agent

    monkeypatch.setattr(headless, "create_agent", recording_create_agent)
    run = HeadlessRun(tmp_path, scripted_llm)
    scripted_llm.push(s.tool_call("finish", {"message": "done"}))

    state = run.run("Finish.")

    assert state.agent_state == AgentState.FINISHED
    assert len(built) == 1 and built[0].llm.config.model == run.config.get_llm_config().model
