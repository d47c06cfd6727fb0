"""Replaying a recorded trajectory instead of asking the agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openhands.controller.replay import ReplayManager, load_replay_log
from openhands.core.schema import AgentState
from openhands.events.action import AgentFinishAction, CmdRunAction, MessageAction
from openhands.events.event import Event, EventSource
from openhands.events.observation import CmdOutputObservation, NullObservation
from openhands.events.serialization.event import event_to_trajectory
from openhands.events.tool import ToolCallMetadata
from tests.unit.controller.harness import World


def _sourced(event: Event, source: EventSource) -> Event:
    event.source = source
    return event


def test_manager_keeps_only_what_agents_and_users_did() -> None:
    events = [
        _sourced(MessageAction("first", wait_for_response=True), EventSource.AGENT),
        _sourced(CmdRunAction("ls"), EventSource.AGENT),
        _sourced(CmdOutputObservation(content="x", command="ls"), EventSource.AGENT),
        _sourced(CmdOutputObservation(content="y", command="ls"), EventSource.ENVIRONMENT),
        _sourced(NullObservation(""), EventSource.AGENT),
        _sourced(MessageAction("last", wait_for_response=True), EventSource.AGENT),
    ]
    manager = ReplayManager(events)
    assert manager.replay_mode
    assert [type(e).__name__ for e in manager.replay_events] == [
        "MessageAction",
        "CmdRunAction",
        "CmdOutputObservation",
        "MessageAction",
    ]
    first, last = manager.replay_events[0], manager.replay_events[-1]
    assert first.wait_for_response is False  # type: ignore[attr-defined]
    assert last.wait_for_response is True  # type: ignore[attr-defined]

    replayed = []
    while manager.should_replay():
        replayed.append(manager.step())
    assert [type(a).__name__ for a in replayed] == [
        "MessageAction",
        "CmdRunAction",
        "MessageAction",
    ]
    assert not manager.should_replay()


def test_no_events_means_no_replay() -> None:
    assert not ReplayManager(None).replay_mode
    assert not ReplayManager([]).should_replay()


def test_trajectory_dicts_become_events_without_ids() -> None:
    data = [
        {"id": 0, "source": "user", "action": "message", "args": {"content": "hi"}},
        {"id": 1, "source": "environment", "observation": "null", "content": "", "extras": {}},
        {"id": 2, "source": "agent", "action": "run", "args": {"command": "ls"}},
    ]
    events = ReplayManager.get_replay_events(data)
    assert [type(e).__name__ for e in events] == ["MessageAction", "CmdRunAction"]
    assert all(e.id == Event.INVALID_ID for e in events)
    with pytest.raises(ValueError):
        ReplayManager.get_replay_events({"not": "a list"})  # type: ignore[arg-type]


def test_load_replay_log_splits_off_the_initial_message(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(
        json.dumps(
            [
                {"source": "user", "action": "message", "args": {"content": "task"}},
                {"source": "agent", "action": "run", "args": {"command": "ls"}},
            ]
        )
    )
    events, initial = load_replay_log(path)
    assert initial.content == "task"
    assert [type(e).__name__ for e in events] == ["CmdRunAction"]

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"source": "agent", "action": "run", "args": {"command": "ls"}}]))
    with pytest.raises(ValueError):
        load_replay_log(bad)
    with pytest.raises(ValueError):
        load_replay_log(tmp_path / "missing.json")


def _cmd_with_call(command: str, call_id: str) -> CmdRunAction:
    action = CmdRunAction(command)
    action.tool_call_metadata = ToolCallMetadata(
        function_name="execute_bash",
        tool_call_id=call_id,
        model_response={"id": "r"},
        total_calls_in_response=1,
    )
    return action


def test_controller_replays_a_recorded_run_without_the_agent(tmp_path: Path) -> None:
    recording = World("recorded")
    try:
        recording.start(
            [
                _cmd_with_call("ls", "c1"),
                _cmd_with_call("pwd", "c2"),
                AgentFinishAction(outputs={"ok": 1}),
            ]
        )
        recording.user_says("inspect the repo")
        recording.wait_for_state(AgentState.FINISHED)
        recording.settle()
        trajectory = [event_to_trajectory(e) for e in recording.events()]
    finally:
        recording.close()
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps(trajectory))

    replay_events, initial = load_replay_log(path)
    # The recorded system prompt is skipped; the user's message starts the replay.
    assert initial.content == "inspect the repo"
    assert not any(type(e).__name__ == "SystemMessageAction" for e in replay_events)
    replay = World("replayed")
    try:
        # An agent that must not be asked: any step would raise.
        controller = replay.start(
            [RuntimeError("the agent was asked")], replay_events=replay_events
        )
        replay.user_says(initial.content)
        replay.wait_for_state(AgentState.FINISHED)
        replay.settle()
        assert replay.agent.steps == 0
        assert controller.state.outputs == {"ok": 1}
        assert [a.command for a in replay.runtime.executed] == ["ls", "pwd"]  # type: ignore[attr-defined]
        assert [a.tool_call_metadata.tool_call_id for a in replay.runtime.executed] == ["c1", "c2"]  # type: ignore[union-attr]
    finally:
        replay.close()
