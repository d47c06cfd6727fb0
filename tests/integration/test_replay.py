"""Replaying a recorded trajectory (agent.md §8.12, §9.4 `--replay-trajectory-path`).

A headless run with the scripted LLM saves its trajectory; the workspace is wiped; a second
run replays that file with no LLM answers at all and must redo the same actions, with the
same effects on real files.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from openhands.core.main import run_controller
from openhands.core.schema import AgentState
from openhands.events.action import Action, MessageAction, NullAction, SystemMessageAction
from openhands.events.event import Event
from openhands.runtime.impl.local.local_runtime import LocalRuntime
from tests.integration.harness import HeadlessRun, agent_actions, requires_tmux
from tests.support import scripted_llm as s
from tests.support.scripted_llm import ScriptedLLMServer

pytestmark = requires_tmux


def _comparable(action: Action) -> dict[str, Any]:
    metadata = action.tool_call_metadata
    return {
        "type": type(action).__name__,
        "source": action.source,
        "args": {k: v for k, v in vars(action).items() if not k.startswith("_")},
        "call": (metadata.function_name, metadata.tool_call_id) if metadata else None,
    }


def _recorded_actions(events: list[Event]) -> list[dict[str, Any]]:
    return [_comparable(a) for a in agent_actions(events) if not isinstance(a, SystemMessageAction)]


def test_a_saved_trajectory_replays_the_same_actions(
    tmp_path: Path, scripted_llm: ScriptedLLMServer
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    trajectory = tmp_path / "trajectory.json"
    run.config.save_trajectory_path = str(trajectory)
    scripted_llm.push(
        s.tool_call(
            "execute_bash",
            {"command": "echo replayed > out.txt", "security_risk": "LOW"},
            content="Writing the file.",
        ),
        s.tool_calls(
            [
                ("execute_bash", {"command": "cat out.txt >> copy.txt", "security_risk": "LOW"}),
                ("think", {"thought": "Both files are there."}),
            ]
        ),
        s.tool_call("finish", {"message": "Wrote out.txt and copy.txt."}),
    )
    recorded_state = run.run("Write out.txt, then copy it.")
    assert recorded_state.agent_state == AgentState.FINISHED
    recorded = _recorded_actions(run.events())
    assert [a["type"] for a in recorded] == [
        "CmdRunAction",
        "CmdRunAction",
        "AgentThinkAction",
        "AgentFinishAction",
    ]
    saved = json.loads(trajectory.read_text())
    assert saved[0]["action"] == "system" and saved[1]["action"] == "message"

    # Start again from an empty workspace, in a new conversation, with a mute LLM.
    shutil.rmtree(run.workspace)
    run.workspace.mkdir()
    requests_before = len(scripted_llm.completion_requests)
    run.config.save_trajectory_path = None
    run.config.replay_trajectory_path = str(trajectory)
    replayed_state = run.run(None, sid=run.sid + "-replay")

    assert replayed_state.agent_state == AgentState.FINISHED
    assert len(scripted_llm.completion_requests) == requests_before  # the agent was never asked
    replayed_events = run.events(run.sid + "-replay")
    assert _recorded_actions(replayed_events) == recorded
    assert (run.workspace / "out.txt").read_text() == "replayed\n"
    assert (run.workspace / "copy.txt").read_text() == "replayed\n"
    first_message = next(e for e in replayed_events if type(e).__name__ == "MessageAction")
    assert first_message.content == "Write out.txt, then copy it."  # type: ignore[attr-defined]
    assert replayed_state.outputs == recorded_state.outputs


@pytest.mark.parametrize(
    ("task", "recorded"),
    [
        ("a task as well", [{"source": "user", "action": "message", "args": {"content": "x"}}]),
        (None, [{"source": "agent", "action": "run", "args": {"command": "ls"}}]),
    ],
    ids=["task-and-replay", "no-initial-message"],
)
def test_a_bad_replay_is_refused_before_any_sandbox_starts(
    tmp_path: Path, scripted_llm: ScriptedLLMServer, task: str | None, recorded: list
) -> None:
    run = HeadlessRun(tmp_path, scripted_llm)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(recorded))
    run.config.replay_trajectory_path = str(path)
    initial = MessageAction(task) if task else NullAction()
    with pytest.raises(ValueError):
        asyncio.run(run_controller(run.config, initial, sid=run.sid))
    assert run.sid not in LocalRuntime._servers
