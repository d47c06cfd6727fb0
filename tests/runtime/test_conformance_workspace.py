"""Conformance §17 item 25: workspace bootstrap — microagents and ``.openhands/setup.sh``.

Also the host-side dispatch of §10.3 that needs a live runtime (think, reject, unknown).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from openhands.events.action import (
    ActionConfirmationStatus,
    AgentThinkAction,
    CmdRunAction,
    FileWriteAction,
)
from openhands.events.event import EventSource
from openhands.events.observation import (
    AgentThinkObservation,
    CmdOutputObservation,
    FileWriteObservation,
    UserRejectObservation,
)
from tests.runtime.conformance import Sandbox

pytestmark = pytest.mark.timeout(300)

REPO_MD = "---\nname: repo\ntype: repo\n---\nAlways run the tests with pytest.\n"
KNOWLEDGE_MD = (
    "---\nname: knowledge\ntype: knowledge\ntriggers:\n  - flarp\n---\nFlarp means widget.\n"
)
SETUP_SH = (
    "echo run >> .openhands/setup_runs.log\nsleep 3\necho finished > .openhands/setup_done.log\n"
)


def put(sandbox: Sandbox, path: str, content: str) -> None:
    obs = sandbox.runtime.run_action(FileWriteAction(path, content))
    assert isinstance(obs, FileWriteObservation), obs


@pytest.fixture
def clean_workspace_config(sandbox: Sandbox) -> Iterator[Sandbox]:
    ws = sandbox.workspace
    sandbox.sh(f"rm -rf {ws}/.openhands {ws}/.openhands_instructions")
    yield sandbox
    sandbox.sh(f"rm -rf {ws}/.openhands {ws}/.openhands_instructions")


def test_microagents_load_from_the_workspace(clean_workspace_config: Sandbox) -> None:
    sandbox = clean_workspace_config
    ws = sandbox.workspace
    put(sandbox, f"{ws}/.openhands/microagents/repo.md", REPO_MD)
    put(sandbox, f"{ws}/.openhands/microagents/knowledge/knowledge.md", KNOWLEDGE_MD)
    put(sandbox, f"{ws}/.openhands/microagents/README.md", "not a microagent")
    put(sandbox, f"{ws}/.openhands_instructions", "Legacy instructions.")

    from openhands.microagent.microagent import KnowledgeMicroagent, RepoMicroagent

    loaded = {
        agent.name: agent for agent in sandbox.runtime.get_microagents_from_selected_repo(None)
    }
    assert set(loaded) == {"repo", "knowledge/knowledge", "repo_legacy"}
    assert isinstance(loaded["repo"], RepoMicroagent)
    assert "Always run the tests with pytest." in loaded["repo"].content
    assert isinstance(loaded["knowledge/knowledge"], KnowledgeMicroagent)
    assert loaded["knowledge/knowledge"].triggers == ["flarp"]
    assert isinstance(loaded["repo_legacy"], RepoMicroagent)
    assert loaded["repo_legacy"].content.strip() == "Legacy instructions."


def test_no_microagents_in_an_empty_workspace(clean_workspace_config: Sandbox) -> None:
    assert clean_workspace_config.runtime.get_microagents_from_selected_repo(None) == []


def test_setup_script_runs_once_and_blocks(clean_workspace_config: Sandbox) -> None:
    sandbox = clean_workspace_config
    put(sandbox, f"{sandbox.workspace}/.openhands/setup.sh", SETUP_SH)
    published: list[object] = []
    sandbox.stream.subscribe("test", published.append, "setup-script-watch")
    try:
        sandbox.runtime.maybe_run_setup_script()
        # The script's last line runs after a 3 s sleep, longer than bash's 1 s soft timeout
        # here: its output being there on return shows the call blocked until the end.
        assert sandbox.sh("cat .openhands/setup_done.log").content == "finished"
        # The runtime handles stream events in id order: once an action published after the
        # script's has its observation, a second run of the script from the stream would
        # already have happened.
        marker = CmdRunAction(command="true")
        assert isinstance(sandbox.via_stream(marker), CmdOutputObservation)
        assert sandbox.sh("cat .openhands/setup_runs.log").content == "run"
    finally:
        sandbox.stream.unsubscribe("test", "setup-script-watch")
    # It is shown on the stream (as the environment's), never run from there.
    commands = [e for e in published if isinstance(e, CmdRunAction) and e.id != marker.id]
    assert [c.source for c in commands] == [EventSource.ENVIRONMENT]
    outputs = [e for e in published if isinstance(e, CmdOutputObservation) and e.cause != marker.id]
    assert len(outputs) == 1 and outputs[0].cause == commands[0].id


def test_no_setup_script_does_nothing(clean_workspace_config: Sandbox) -> None:
    before = len(clean_workspace_config.statuses)
    clean_workspace_config.runtime.maybe_run_setup_script()
    assert len(clean_workspace_config.statuses) == before


# --- §10.3 dispatch on the host -------------------------------------------------------------


def test_host_answers_non_runnable_and_rejected_actions(sandbox: Sandbox) -> None:
    thought = sandbox.via_stream(AgentThinkAction(thought="hmm"))
    assert isinstance(thought, AgentThinkObservation)
    assert thought.content == "Your thought has been logged."
    rejected = CmdRunAction("touch should_not_exist")
    rejected.confirmation_state = ActionConfirmationStatus.REJECTED
    obs = sandbox.via_stream(rejected)
    assert isinstance(obs, UserRejectObservation)
    assert sandbox.sh("test ! -e should_not_exist").exit_code == 0
