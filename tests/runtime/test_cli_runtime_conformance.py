"""CLIRuntime through the event stream, as the terminal app drives it (cli.md §13, §16 23–24).

The runtime is built by the app's own ``create_runtime`` from a CLI-mode config, connected,
and every action is published on its EventStream as the agent would; the test waits for the
observation the runtime publishes in answer (``cause`` = the action's id).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from openhands.core.config import MCPStdioServerConfig, OpenHandsConfig
from openhands.core.config.utils import finalize_config
from openhands.core.schema import AgentState
from openhands.core.setup import create_agent, create_runtime
from openhands.events.action import (
    Action,
    ActionConfirmationStatus,
    BrowseInteractiveAction,
    BrowseURLAction,
    CmdRunAction,
    FileReadAction,
    FileWriteAction,
    IPythonRunCellAction,
    MCPAction,
)
from openhands.events.event import Event, EventSource
from openhands.events.observation import (
    CmdOutputObservation,
    ErrorObservation,
    FileReadObservation,
    FileWriteObservation,
    MCPObservation,
    Observation,
    UserRejectObservation,
)
from openhands.events.stream import EventStreamSubscriber
from openhands.llm.llm_registry import LLMRegistry
from openhands.runtime.impl.cli import CLIRuntime
from tests.integration.harness import HeadlessRun
from tests.support import scripted_llm as script
from tests.support.mcp_server import stdio_command
from tests.support.scripted_llm import ScriptedLLMServer

pytestmark = [pytest.mark.timeout(300)]

IPYTHON_TEXT = "Executing IPython cells is not implemented in CLIRuntime. "
BROWSER_TEXT = "Browser functionality is not implemented in CLIRuntime"


def cli_config(workspace: Path) -> OpenHandsConfig:
    """What the terminal app's start-up makes of an empty config (cli.md §2 step 8)."""
    config = OpenHandsConfig()
    config.file_store = "memory"
    config.runtime = "cli"
    config.workspace_base = str(workspace)
    config.security.confirmation_mode = True
    config.get_agent_config().cli_mode = True
    finalize_config(config)
    return config


@dataclass
class Session:
    runtime: CLIRuntime
    workspace: Path

    def observe(self, action: Action, wait: float = 120) -> Observation:
        """Publish ``action`` as the agent; the observation the runtime answers with."""
        answered = threading.Event()
        found: list[Observation] = []
        callback_id = f"cli-conformance-{id(action)}"

        def on_event(event: Event) -> None:
            if isinstance(event, Observation) and event.cause == action.id:
                found.append(event)
                answered.set()

        stream = self.runtime.event_stream
        stream.subscribe(EventStreamSubscriber.TEST, on_event, callback_id)
        try:
            stream.add_event(action, EventSource.AGENT)
            assert answered.wait(wait), f"no observation for {action}"
        finally:
            stream.unsubscribe(EventStreamSubscriber.TEST, callback_id)
        return found[0]

    def command(self, command: str, timeout: float | None = None) -> CmdOutputObservation:
        action = CmdRunAction(command)
        if timeout is not None:
            action.set_hard_timeout(timeout)
        obs = self.observe(action)
        assert isinstance(obs, CmdOutputObservation), obs
        return obs


@pytest.fixture
def config(tmp_path: Path) -> OpenHandsConfig:
    return cli_config(tmp_path / "project")


@pytest.fixture
def session(config: OpenHandsConfig) -> Iterator[Session]:
    saved_cwd = os.getcwd()  # connect() moves the whole process into the workspace
    runtime = create_runtime(config, LLMRegistry(config), sid="cli-conformance")
    assert isinstance(runtime, CLIRuntime)
    try:
        asyncio.run(runtime.connect())
        yield Session(runtime, runtime.workspace_root)
    finally:
        runtime.close()
        runtime.event_stream.close()
        os.chdir(saved_cwd)


# --- §16 item 23 --------------------------------------------------------------------------------


def test_cd_does_not_carry_over(session: Session) -> None:
    assert session.command("cd /tmp && pwd").content == "/tmp\n"
    second = session.command("pwd")
    assert second.content == f"{session.workspace}\n"
    assert second.metadata.working_dir == str(session.workspace)


def test_a_command_longer_than_its_timeout(session: Session) -> None:
    obs = session.command("sleep 30", timeout=1)
    assert obs.exit_code == -1
    assert obs.metadata.suffix == "[The command timed out after 1.0 seconds.]"
    # The runtime is free again at once.
    assert session.command("echo after").content == "after\n"


def test_reading_outside_the_workspace_is_refused(session: Session, tmp_path: Path) -> None:
    (tmp_path / "x").write_text("secret-content")
    traversal = session.observe(FileReadAction("../x"))
    assert isinstance(traversal, ErrorObservation), traversal
    assert traversal.content.startswith("Invalid path traversal: ../x")
    absolute = session.observe(FileReadAction(str(tmp_path / "x")))
    assert isinstance(absolute, ErrorObservation), absolute
    assert absolute.content == (
        f"Invalid path: {tmp_path / 'x'}. You can only work with files in {session.workspace}."
    )
    assert "secret-content" not in traversal.content + absolute.content
    write = session.observe(FileWriteAction("../x", "overwritten"))
    assert isinstance(write, ErrorObservation)
    assert (tmp_path / "x").read_text() == "secret-content"


def test_workspace_alias(session: Session) -> None:
    written = session.observe(FileWriteAction("/workspace/a.txt", "hello"))
    assert isinstance(written, FileWriteObservation)
    assert written.path == str(session.workspace / "a.txt")
    assert (session.workspace / "a.txt").read_text() == "hello"
    read = session.observe(FileReadAction("/workspace/a.txt"))
    assert isinstance(read, FileReadObservation)
    assert read.content == "hello"
    assert session.command("cat a.txt").content == "hello"


# --- §16 item 24 --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (IPythonRunCellAction("print(1)"), IPYTHON_TEXT),
        (BrowseURLAction("http://127.0.0.1:9"), BROWSER_TEXT),
        (BrowseInteractiveAction(browser_actions='goto("http://127.0.0.1:9")'), BROWSER_TEXT),
    ],
    ids=["ipython", "browse", "browse_interactive"],
)
def test_ipython_and_browsing_are_refused(session: Session, action: Action, text: str) -> None:
    obs = session.observe(action)
    assert isinstance(obs, ErrorObservation)
    assert obs.content == text


def test_the_cli_mode_agent_has_no_ipython_or_browser_tool(
    config: OpenHandsConfig, tmp_path: Path
) -> None:
    def tool_names(cfg: OpenHandsConfig) -> list[str]:
        agent = create_agent(cfg, LLMRegistry(cfg))
        return [tool["function"]["name"] for tool in agent.tools]

    names = tool_names(config)
    assert "execute_bash" in names and "str_replace_editor" in names
    assert "execute_ipython_cell" not in names
    assert "browser" not in names

    # The same config on a sandbox runtime keeps both: finalize_config is what removes them.
    sandboxed = OpenHandsConfig()
    sandboxed.file_store = "memory"
    sandboxed.workspace_base = str(tmp_path)
    finalize_config(sandboxed)
    assert {"execute_ipython_cell", "browser"} <= set(tool_names(sandboxed))


# --- the rest of the app's use of the runtime ---------------------------------------------------


def test_rejected_actions_do_not_run(session: Session) -> None:
    action = CmdRunAction("touch rejected.txt")
    action.confirmation_state = ActionConfirmationStatus.REJECTED
    assert isinstance(session.observe(action), UserRejectObservation)
    assert not (session.workspace / "rejected.txt").exists()


def test_shell_stream_sees_lines_of_commands_from_the_stream(session: Session) -> None:
    lines: list[str] = []
    session.runtime.subscribe_to_shell_stream(lines.append)
    session.command("for i in 1 2 3; do echo line $i; done")
    assert lines == ["line 1\n", "line 2\n", "line 3\n"]


def test_mcp_tools_of_a_stdio_server_on_the_host(config: OpenHandsConfig) -> None:
    """``[mcp]`` stdio servers start on the host: listed for the agent, called via the stream."""
    from openhands.mcp.utils import add_mcp_tools_to_agent

    config.mcp.stdio_servers = [MCPStdioServerConfig(**stdio_command())]
    saved_cwd = os.getcwd()
    runtime = create_runtime(config, LLMRegistry(config), sid="cli-mcp")
    try:
        asyncio.run(runtime.connect())
        agent = create_agent(config, LLMRegistry(config))
        asyncio.run(add_mcp_tools_to_agent(agent, runtime))
        assert "add" in agent.mcp_tools

        assert isinstance(runtime, CLIRuntime)
        session = Session(runtime, runtime.workspace_root)
        obs = session.observe(MCPAction(name="add", arguments={"a": 19, "b": 23}))
        assert isinstance(obs, MCPObservation), obs
        assert json.loads(obs.content)["content"][0]["text"] == "42"
    finally:
        runtime.close()
        runtime.event_stream.close()
        os.chdir(saved_cwd)


def test_setup_script_and_microagents_of_the_workspace(session: Session) -> None:
    workspace = session.workspace
    (workspace / ".openhands" / "microagents").mkdir(parents=True)
    (workspace / ".openhands" / "setup.sh").write_text("echo ran > setup-ran.txt\n")
    (workspace / ".openhands" / "microagents" / "repo.md").write_text(
        "---\nname: repo\ntype: repo\nagent: CodeActAgent\n---\nUse tabs.\n"
    )
    session.runtime.maybe_run_setup_script()
    assert (workspace / "setup-ran.txt").read_text() == "ran\n"

    agents = session.runtime.get_microagents_from_selected_repo(None)
    assert [agent.name for agent in agents] == ["repo"]
    assert "Use tabs." in agents[0].content


def test_git_helpers_run_on_the_host(session: Session) -> None:
    workspace = session.workspace
    assert session.runtime.get_git_changes(str(workspace)) == []
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=workspace, check=True)
    (workspace / "new.txt").write_text("new\n")
    assert session.runtime.get_git_changes(str(workspace)) == [{"status": "A", "path": "new.txt"}]
    assert session.runtime.get_workspace_branch() == "main"


def test_a_whole_conversation_on_the_cli_runtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real CodeActAgent and controller (headless main) acting through CLIRuntime."""
    monkeypatch.setenv("HOME", str(tmp_path))  # user microagents: none
    saved_cwd = os.getcwd()
    with ScriptedLLMServer() as llm:
        run = HeadlessRun(tmp_path, llm)
        run.config.runtime = "cli"
        llm.push(
            script.tool_call(
                "str_replace_editor",
                {"command": "create", "path": "/workspace/hello.py", "file_text": "print('hi')\n"},
            ),
            script.tool_call(
                "execute_bash", {"command": "python3 hello.py", "security_risk": "LOW"}
            ),
            script.tool_call("finish", {"message": "Done."}),
        )
        try:
            state = run.run("Write hello.py and run it.")
        finally:
            os.chdir(saved_cwd)
        requests = [json.dumps(r.messages) for r in llm.completion_requests]

    assert state.agent_state == AgentState.FINISHED
    assert (run.workspace / "hello.py").read_text() == "print('hi')\n"
    outputs = [e for e in run.events() if isinstance(e, CmdOutputObservation)]
    assert [(o.content, o.exit_code) for o in outputs] == [("hi\n", 0)]
    # What the model was told: the real host path of the new file, and the command's output.
    assert len(requests) == 3
    assert str(run.workspace / "hello.py") in requests[2]
