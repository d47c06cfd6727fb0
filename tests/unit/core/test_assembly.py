"""``openhands.core.assembly``: one conversation assembled, started, waited for and closed.

Real parts throughout: the scripted LLM over HTTP (LiteLLM), a CLIRuntime on a temporary
workspace, a LocalFileStore, the real CodeActAgent, Memory and AgentController.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from openhands.core.assembly import (
    AssemblyOptions,
    AssemblySteps,
    ConversationParts,
    assemble_conversation,
    close_runtime_and_wait,
    wait_for_end_state,
)
from openhands.core.config import AgentConfig, OpenHandsConfig
from openhands.core.schema import AgentState
from openhands.core.setup import ConversationBuilder, create_runtime
from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.event import EventSource
from openhands.events.observation import AgentStateChangedObservation, CmdOutputObservation
from openhands.events.stream import EventStream
from openhands.runtime.base import Runtime
from openhands.storage.local import LocalFileStore
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

END_STATES = (AgentState.FINISHED, AgentState.ERROR, AgentState.STOPPED)
# An upper bound for a whole scripted run, not a synchronisation point.
RUN_TIMEOUT = 60.0


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture
def config(tmp_path: Path, scripted_llm: ScriptedLLMServer) -> OpenHandsConfig:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    cfg = OpenHandsConfig(
        runtime="cli",
        workspace_base=str(workspace),
        file_store="local",
        file_store_path=str(tmp_path / "store"),
        max_iterations=10,
        enable_browser=False,
    )
    cfg.set_llm_config(scripted_llm.llm_config(native_tool_calling=True))
    cfg.set_agent_config(
        AgentConfig(enable_browsing=False, enable_jupyter=False, enable_plan_mode=False)
    )
    return cfg


class _RecordingRelease:
    """Closes a runtime the default way and remembers which ones it closed."""

    def __init__(self) -> None:
        self.closed: list[Runtime] = []

    async def __call__(self, runtime: Runtime) -> None:
        await close_runtime_and_wait(runtime)
        self.closed.append(runtime)


def _finish() -> s.Reply:
    return s.tool_call("finish", {"message": "Done."})


async def test_assembles_runs_to_an_end_state_and_closes_what_it_built(
    config: OpenHandsConfig, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.push(
        s.tool_call(
            "execute_bash", {"command": "echo assembled > out.txt", "security_risk": "LOW"}
        ),
        _finish(),
    )
    release = _RecordingRelease()
    options = AssemblyOptions(
        initial_user_action=MessageAction("Write out.txt, then finish."),
        release_runtime=release,
    )

    parts = await asyncio.wait_for(assemble_conversation(config, "asm-run", options), RUN_TIMEOUT)
    try:
        assert isinstance(parts, ConversationParts)
        assert (parts.owns_runtime, parts.owns_memory, parts.owns_event_stream) == (
            True,
            True,
            True,
        )
        assert parts.controller.event_stream is parts.event_stream
        assert parts.runtime.event_stream is parts.event_stream
        final = await asyncio.wait_for(
            wait_for_end_state(parts.controller, END_STATES), RUN_TIMEOUT
        )
    finally:
        await parts.close()

    assert final == AgentState.FINISHED
    assert (Path(config.workspace_base or "") / "out.txt").read_text().strip() == "assembled"
    assert release.closed == [parts.runtime]
    assert parts.closed
    # The first event a user sees is the task; the stream was saved to the configured store.
    saved = EventStream("asm-run", LocalFileStore(config.file_store_path))
    first_user = next(e for e in saved.search_events() if e.source == EventSource.USER)
    assert isinstance(first_user, MessageAction)
    assert first_user.content == "Write out.txt, then finish."


async def test_the_parts_cannot_be_swapped_and_close_only_once(
    config: OpenHandsConfig, scripted_llm: ScriptedLLMServer
) -> None:
    release = _RecordingRelease()
    parts = await assemble_conversation(
        config, "asm-frozen", AssemblyOptions(release_runtime=release)
    )
    try:
        with pytest.raises(dataclasses.FrozenInstanceError):
            parts.runtime = parts.runtime  # type: ignore[misc]
    finally:
        await parts.close()
        await parts.close()
    assert release.closed == [parts.runtime]


async def test_a_runtime_handed_in_stays_open_with_its_stream(
    config: OpenHandsConfig, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.push(_finish())
    runtime = create_runtime(config, sid="asm-given", headless_mode=True)
    await runtime.connect()
    release = _RecordingRelease()
    try:
        parts = await assemble_conversation(
            config,
            "asm-given",
            AssemblyOptions(
                runtime=runtime,
                initial_user_action=MessageAction("Finish."),
                release_runtime=release,
            ),
        )
        assert parts.runtime is runtime and parts.event_stream is runtime.event_stream
        assert not parts.owns_runtime and not parts.owns_event_stream
        final = await asyncio.wait_for(
            wait_for_end_state(parts.controller, END_STATES), RUN_TIMEOUT
        )
        await parts.close()

        assert final == AgentState.FINISHED
        assert release.closed == []
        # Still usable by its owner: the sandbox runs commands, the stream takes events.
        observation = await asyncio.to_thread(runtime.run_action, CmdRunAction("echo open"))
        assert isinstance(observation, CmdOutputObservation)
        assert observation.content.strip() == "open"
        runtime.event_stream.add_event(MessageAction("after"), EventSource.USER)
        last = next(runtime.event_stream.search_events(reverse=True))
        assert isinstance(last, MessageAction) and last.content == "after"
    finally:
        runtime.close()
        runtime.event_stream.close()


class _FailingController(AssemblySteps):
    async def controller(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        raise RuntimeError("no controller today")


async def test_a_failed_step_releases_what_was_built_and_raises(
    config: OpenHandsConfig, scripted_llm: ScriptedLLMServer
) -> None:
    release = _RecordingRelease()
    options = AssemblyOptions(steps=_FailingController(), release_runtime=release)

    with pytest.raises(RuntimeError, match="no controller today"):
        await assemble_conversation(config, "asm-fail", options)

    assert len(release.closed) == 1  # the runtime the runtime step built


class _OwnAgentName(AssemblySteps):
    """Builds the agent its own way: records that the step ran, then builds the default."""

    def __init__(self) -> None:
        self.agent_steps = 0

    async def agent(self, draft: ConversationBuilder, options: AssemblyOptions) -> None:
        self.agent_steps += 1
        await super().agent(draft, options)


async def test_an_overridden_step_is_used_and_listeners_come_before_the_first_action(
    config: OpenHandsConfig, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.push(_finish())
    steps = _OwnAgentName()
    seen_before_start: list[int] = []

    def before_start(parts: ConversationParts) -> None:
        users = [e for e in parts.event_stream.search_events() if e.source == EventSource.USER]
        seen_before_start.append(len(users))

    parts = await assemble_conversation(
        config,
        "asm-steps",
        AssemblyOptions(
            steps=steps, before_start=before_start, initial_user_action=MessageAction("Go.")
        ),
    )
    try:
        final = await asyncio.wait_for(
            wait_for_end_state(parts.controller, END_STATES), RUN_TIMEOUT
        )
    finally:
        await parts.close()
    assert steps.agent_steps == 1
    assert seen_before_start == [0]
    assert final == AgentState.FINISHED


async def test_waiting_on_a_stream_sees_an_end_state_reached_before_the_call(
    tmp_path: Path,
) -> None:
    stream = EventStream("asm-wait", LocalFileStore(str(tmp_path)))
    try:
        stream.add_event(AgentStateChangedObservation("", "running"), EventSource.ENVIRONMENT)
        stream.add_event(AgentStateChangedObservation("", "finished"), EventSource.ENVIRONMENT)
        assert (
            await asyncio.wait_for(wait_for_end_state(stream, END_STATES), RUN_TIMEOUT)
            == AgentState.FINISHED
        )
    finally:
        stream.close()


async def test_waiting_on_a_stream_returns_the_end_state_published_later(tmp_path: Path) -> None:
    stream = EventStream("asm-later", LocalFileStore(str(tmp_path)))
    try:
        waiting = asyncio.create_task(wait_for_end_state(stream, ["error", AgentState.STOPPED]))
        # One turn of the loop runs the new task up to its wait (it has subscribed by then);
        # then publish from another thread, as the controller does.
        await asyncio.sleep(0)
        assert not waiting.done()
        await asyncio.to_thread(
            stream.add_event, AgentStateChangedObservation("", "running"), EventSource.ENVIRONMENT
        )
        await asyncio.to_thread(
            stream.add_event, AgentStateChangedObservation("", "error"), EventSource.ENVIRONMENT
        )
        assert await asyncio.wait_for(waiting, RUN_TIMEOUT) == AgentState.ERROR
        # The wait took its listener off the stream: a second wait subscribes afresh.
        assert (
            await asyncio.wait_for(wait_for_end_state(stream, [AgentState.ERROR]), RUN_TIMEOUT)
            == AgentState.ERROR
        )
    finally:
        stream.close()
