"""A script written against the reference's public API runs unchanged.

It builds the conversation the way evaluation scripts of the reference do: an
``EventStream`` from ``openhands.events``, ``create_runtime`` (LocalRuntime), the agent,
memory and controller from ``openhands.core.setup``, a direct ``CmdRunAction`` on the
runtime, ``run_agent_until_done`` from ``openhands.core.loop`` and, at the end,
``await controller.close()``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from openhands.core.config import AgentConfig, OpenHandsConfig
from openhands.core.loop import run_agent_until_done
from openhands.core.schema import AgentState
from openhands.core.setup import (
    create_agent,
    create_controller,
    create_memory,
    create_registry_and_conversation_stats,
    create_runtime,
    generate_sid,
)
from openhands.events import EventSource, EventStream
from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.observation import CmdOutputObservation
from openhands.storage import get_file_store
from tests.integration.harness import requires_tmux
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

END_STATES = [AgentState.FINISHED, AgentState.REJECTED, AgentState.ERROR, AgentState.STOPPED]


@requires_tmux
def test_reference_style_script(tmp_path: Path, scripted_llm: ScriptedLLMServer) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    config = OpenHandsConfig(
        runtime="local",
        workspace_base=str(workspace),
        file_store="local",
        file_store_path=str(tmp_path / "store"),
        max_iterations=10,
        enable_browser=False,
    )
    config.set_llm_config(scripted_llm.llm_config(native_tool_calling=True))
    config.set_agent_config(
        AgentConfig(enable_browsing=False, enable_jupyter=False, enable_plan_mode=False)
    )
    scripted_llm.push(s.tool_call("finish", {"message": "All done."}))

    async def run_controller() -> tuple[str, AgentState, list[str]]:
        sid = generate_sid(config)
        file_store = get_file_store(config.file_store, config.file_store_path)
        event_stream = EventStream(sid, file_store)
        llm_registry, conversation_stats, config_ = create_registry_and_conversation_stats(
            config, sid
        )
        agent = create_agent(config_, llm_registry)
        runtime = create_runtime(
            config_, llm_registry, sid=sid, agent=agent, event_stream=event_stream
        )
        await runtime.connect()
        try:
            observation = runtime.run_action(CmdRunAction(command="echo reference-style"))
            assert isinstance(observation, CmdOutputObservation)
            memory = create_memory(runtime, event_stream, sid, working_dir=str(workspace))
            controller, _ = create_controller(agent, runtime, config_, conversation_stats)
            event_stream.add_event(MessageAction(content="Say you are done."), EventSource.USER)
            await asyncio.wait_for(
                run_agent_until_done(controller, runtime, memory, END_STATES), timeout=60
            )
            final = controller.get_agent_state()
            await controller.close()
            trajectory = controller.get_trajectory()
            kinds = [str(t.get("action") or t.get("observation")) for t in trajectory]
            return observation.content, final, kinds
        finally:
            runtime.close()
            event_stream.close()

    output, final, kinds = asyncio.run(run_controller())
    assert "reference-style" in output
    assert final == AgentState.FINISHED
    assert kinds[0] == "system" and "message" in kinds and kinds[-1] == "finish"
