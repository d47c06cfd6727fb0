"""CLIRuntime (cli.md §13): path rules and every method, on real files and real processes.

Each runtime works in its own ``tmp_path`` workspace. ``connect()`` changes the process's
working directory, so every test here runs with the cwd saved and put back afterwards.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from openhands.core.config import (
    MCPSSEServerConfig,
    MCPStdioServerConfig,
    OpenHandsConfig,
)
from openhands.events.action import (
    BrowseInteractiveAction,
    BrowseURLAction,
    CmdRunAction,
    FileEditAction,
    FileReadAction,
    FileWriteAction,
    IPythonRunCellAction,
    MCPAction,
)
from openhands.events.event import FileEditSource, FileReadSource
from openhands.events.observation import (
    CmdOutputObservation,
    ErrorObservation,
    FileEditObservation,
    FileReadObservation,
    FileWriteObservation,
    MCPObservation,
)
from openhands.events.stream import EventStream
from openhands.runtime import get_runtime_cls
from openhands.runtime.impl.cli import CLIRuntime
from openhands.runtime.runtime_status import RuntimeStatus
from openhands.storage.memory import InMemoryFileStore
from tests.support.mcp_server import free_port, stdio_command

RuntimeFactory = Callable[..., CLIRuntime]
# The trailing space is the reference's.
IPYTHON_TEXT = "Executing IPython cells is not implemented in CLIRuntime. "


@pytest.fixture(autouse=True)
def restore_cwd() -> Iterator[None]:
    saved = os.getcwd()
    try:
        yield
    finally:
        os.chdir(saved)


@pytest.fixture
def restore_environ() -> Iterator[None]:
    """``add_env_vars`` writes ``os.environ`` itself: put it back as it was."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture
def make_runtime(tmp_path: Path) -> Iterator[RuntimeFactory]:
    """Build (not connect) runtimes whose workspace defaults to ``tmp_path/ws``."""
    made: list[CLIRuntime] = []

    def build(
        workspace: str | None = str(tmp_path / "ws"),
        configure: Callable[[OpenHandsConfig], None] | None = None,
        **kwargs: object,
    ) -> CLIRuntime:
        config = OpenHandsConfig()
        config.workspace_base = workspace
        if configure is not None:
            configure(config)
        stream = EventStream(f"cli-{len(made)}", InMemoryFileStore())
        runtime = CLIRuntime(config, stream, **kwargs)  # type: ignore[arg-type]
        made.append(runtime)
        return runtime

    yield build
    for runtime in made:
        runtime.close()
        runtime.event_stream.close()


@pytest.fixture
def runtime(make_runtime: RuntimeFactory) -> CLIRuntime:
    runtime = make_runtime()
    asyncio.run(runtime.connect())
    return runtime


@pytest.fixture
def ws(runtime: CLIRuntime) -> Path:
    return runtime.workspace_root


def run(
    runtime: CLIRuntime, command: str, timeout: float = 30, **kwargs: object
) -> CmdOutputObservation:
    action = CmdRunAction(command, **kwargs)  # type: ignore[arg-type]
    action.set_hard_timeout(timeout)
    obs = runtime.run(action)
    assert isinstance(obs, CmdOutputObservation), obs
    return obs


# --- registry, construction, workspace --------------------------------------------------------


def test_registered_as_cli() -> None:
    assert get_runtime_cls("cli") is CLIRuntime


def test_construction_warns_that_nothing_is_sandboxed(
    make_runtime: RuntimeFactory, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="openhands"):
        make_runtime()
    assert any("no sandbox" in record.getMessage() for record in caplog.records)


def test_workspace_base_is_the_workspace(make_runtime: RuntimeFactory, tmp_path: Path) -> None:
    statuses: list[RuntimeStatus] = []
    runtime = make_runtime(
        str(tmp_path / "new" / "dir"), status_callback=lambda _l, s, _m: statuses.append(s)
    )
    workspace = tmp_path / "new" / "dir"
    assert runtime.workspace_root == workspace
    assert runtime.config.workspace_mount_path_in_sandbox == str(workspace)
    assert not runtime.runtime_initialized

    asyncio.run(runtime.connect())
    assert workspace.is_dir()
    assert os.getcwd() == str(workspace)
    assert runtime.runtime_initialized
    assert statuses == [RuntimeStatus.STARTING_RUNTIME, RuntimeStatus.RUNTIME_STARTED]


def test_temp_workspace_is_named_after_the_conversation_and_deleted_with_it(
    make_runtime: RuntimeFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    mine = make_runtime(None, sid="abc")
    other = make_runtime(None, sid="abc_def")
    assert re.fullmatch(r"openhands_workspace_abc_[0-9a-f]{8}", mine.workspace_root.name)
    assert mine.workspace_root.parent == tmp_path
    assert mine.config.workspace_mount_path_in_sandbox == str(mine.workspace_root)

    asyncio.run(CLIRuntime.delete("abc"))
    assert not mine.workspace_root.exists()
    assert other.workspace_root.is_dir(), "another conversation's workspace was removed"


def test_additional_instructions_name_the_workspace(runtime: CLIRuntime, ws: Path) -> None:
    text = runtime.additional_agent_instructions
    assert f"Your working directory is {ws}" in text
    assert "directly on the user's machine" in text


def test_ui_members(runtime: CLIRuntime, ws: Path) -> None:
    assert runtime.vscode_url is None
    assert runtime.web_hosts == {}
    assert runtime.workspace_root == ws and ws.is_absolute()


def test_close_marks_not_initialized(runtime: CLIRuntime) -> None:
    runtime.close()
    assert not runtime.runtime_initialized
    obs = runtime.run(CmdRunAction("echo hi"))
    assert isinstance(obs, ErrorObservation)
    runtime.close()  # twice is fine


# --- environment ------------------------------------------------------------------------------


@pytest.mark.usefixtures("restore_environ")
def test_add_env_vars_sets_the_process_environment(runtime: CLIRuntime) -> None:
    runtime.add_env_vars({"cli_plain": "one two", "CLI_SECRET": SecretStr("s3cret")})
    assert os.environ["CLI_PLAIN"] == "one two"
    assert os.environ["CLI_SECRET"] == "s3cret"
    assert run(runtime, 'echo "$CLI_PLAIN/$CLI_SECRET"').content == "one two/s3cret\n"


@pytest.mark.usefixtures("restore_environ")
def test_connect_sets_up_the_environment_without_touching_git(
    make_runtime: RuntimeFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SANDBOX_ENV_CLI_FROM_HOST", "host")

    def configure(config: OpenHandsConfig) -> None:
        config.runtime = "docker"  # even then the user's git identity stays as it is
        config.sandbox.runtime_startup_env_vars = {"CLI_STARTUP": "startup"}

    runtime = make_runtime(configure=configure, env_vars={"CLI_ARG": "arg"})
    asyncio.run(runtime.connect())
    for name, value in {
        "CLI_FROM_HOST": "host",
        "CLI_STARTUP": "startup",
        "CLI_ARG": "arg",
    }.items():
        assert os.environ[name] == value
    assert not (home / ".gitconfig").exists()
    assert not (home / ".bashrc").exists()


@pytest.mark.usefixtures("restore_environ")
def test_attaching_skips_the_environment_setup(make_runtime: RuntimeFactory) -> None:
    runtime = make_runtime(env_vars={"CLI_ATTACHED": "x"}, attach_to_existing=True)
    asyncio.run(runtime.connect())
    assert "CLI_ATTACHED" not in os.environ
    assert runtime.runtime_initialized


# --- path rules (§13.3) -----------------------------------------------------------------------


def test_workspace_alias_and_relative_paths(runtime: CLIRuntime, ws: Path) -> None:
    sanitize = runtime._sanitize_filename
    assert sanitize("/workspace") == str(ws)
    assert sanitize("/workspace/") == str(ws)
    assert sanitize("/workspace/a.txt") == str(ws / "a.txt")
    assert sanitize("/workspace/sub/b.txt") == str(ws / "sub" / "b.txt")
    assert sanitize("a.txt") == str(ws / "a.txt")
    assert sanitize("sub/../c.txt") == str(ws / "c.txt")
    assert sanitize(str(ws / "d.txt")) == str(ws / "d.txt")


def test_absolute_paths_outside_are_refused(runtime: CLIRuntime, ws: Path) -> None:
    with pytest.raises(PermissionError) as refused:
        runtime._sanitize_filename("/etc/passwd")
    assert str(refused.value) == (
        f"Invalid path: /etc/passwd. You can only work with files in {ws}."
    )
    # A sibling that merely starts with the same characters is outside too.
    with pytest.raises(PermissionError, match=r"^Invalid path: "):
        runtime._sanitize_filename(f"{ws}-evil/x")


@pytest.mark.parametrize("path", ["../x", "/workspace/../x", "sub/../../x", "{ws}/../x"])
def test_dotdot_escapes_are_refused(runtime: CLIRuntime, ws: Path, path: str) -> None:
    with pytest.raises(PermissionError, match=r"^Invalid path traversal: "):
        runtime._sanitize_filename(path.format(ws=ws))


def test_symlinks_are_resolved_before_the_check(
    runtime: CLIRuntime, ws: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "out").symlink_to(outside)
    (ws / "real").mkdir()
    (ws / "in").symlink_to(ws / "real")
    with pytest.raises(PermissionError, match=r"^Invalid path traversal: "):
        runtime._sanitize_filename("out/secret.txt")
    with pytest.raises(PermissionError, match=r"^Invalid path traversal: "):
        runtime._sanitize_filename("/workspace/out")
    assert runtime._sanitize_filename("in/f.txt") == str(ws / "real" / "f.txt")


def test_malformed_paths_are_refused(runtime: CLIRuntime) -> None:
    with pytest.raises(PermissionError, match="NUL"):
        runtime._sanitize_filename("a\x00b")


def test_refusals_propagate_from_read_write_edit(runtime: CLIRuntime) -> None:
    for action in (
        FileReadAction("../x"),
        FileReadAction("../x", impl_source=FileReadSource.OH_ACI),
        FileWriteAction("/etc/cli-runtime-test", "x"),
        FileEditAction("../x", command="create", file_text="x"),
    ):
        with pytest.raises(PermissionError):
            runtime.run_action(action)


# --- run (§13.4) ------------------------------------------------------------------------------


def test_run_before_connect_is_an_error(make_runtime: RuntimeFactory) -> None:
    obs = make_runtime().run(CmdRunAction("echo hi"))
    assert isinstance(obs, ErrorObservation)
    assert obs.content == "Runtime not initialized for command: echo hi"


def test_run_merges_output_and_reports_the_exit_code(runtime: CLIRuntime, ws: Path) -> None:
    obs = run(runtime, "echo out; echo err >&2; exit 3")
    assert obs.content == "out\nerr\n"
    assert obs.exit_code == 3
    assert obs.command == "echo out; echo err >&2; exit 3"
    assert obs.metadata.working_dir == str(ws)
    assert run(runtime, "pwd").content == f"{ws}\n"
    assert run(runtime, "nonexistent_command_xyz").exit_code == 127


def test_each_command_is_a_fresh_shell(runtime: CLIRuntime, ws: Path) -> None:
    assert run(runtime, "cd /tmp && export CLI_X=1 && pwd").content == "/tmp\n"
    assert run(runtime, 'pwd; echo "x=$CLI_X"').content == f"{ws}\nx=\n"


def test_commands_get_no_input(runtime: CLIRuntime) -> None:
    # stdin is /dev/null: a command that reads it ends at once instead of waiting.
    obs = run(runtime, "cat; echo done")
    assert obs.content == "done\n" and obs.exit_code == 0


def test_action_cwd_is_used(runtime: CLIRuntime, ws: Path) -> None:
    (ws / "sub").mkdir()
    obs = run(runtime, "pwd", cwd=str(ws / "sub"))
    assert obs.content == f"{ws / 'sub'}\n"
    assert obs.metadata.working_dir == str(ws / "sub")


def test_a_missing_working_directory_is_an_error(runtime: CLIRuntime, ws: Path) -> None:
    obs = runtime.run(CmdRunAction("pwd", cwd=str(ws / "gone")))
    assert isinstance(obs, ErrorObservation)
    assert "gone" in obs.content


def test_timeout_stops_the_process_group(runtime: CLIRuntime) -> None:
    obs = run(runtime, "echo started; sleep 30 & echo $!; wait", timeout=1)
    assert obs.exit_code == -1
    assert obs.metadata.suffix == "[The command timed out after 1.0 seconds.]"
    started, pid = obs.content.split()
    assert started == "started"
    _wait_until_gone(int(pid))


def test_default_timeout_is_the_sandbox_timeout(make_runtime: RuntimeFactory) -> None:
    def configure(config: OpenHandsConfig) -> None:
        config.sandbox.timeout = 1

    runtime = make_runtime(configure=configure)
    asyncio.run(runtime.connect())
    obs = runtime.run(CmdRunAction("sleep 30"))
    assert isinstance(obs, CmdOutputObservation)
    assert obs.exit_code == -1
    assert obs.metadata.suffix == "[The command timed out after 1.0 seconds.]"


def test_a_background_job_does_not_hold_the_command(runtime: CLIRuntime) -> None:
    obs = run(runtime, "sleep 60 & echo $!", timeout=50)
    assert obs.exit_code == 0 and obs.metadata.suffix == ""
    pid = int(obs.content)
    os.kill(pid, 15)
    _wait_until_gone(pid)


def test_large_and_undecodable_output(runtime: CLIRuntime) -> None:
    obs = run(runtime, "seq 1 200000")
    assert obs.exit_code == 0
    assert obs.content.startswith("1\n2\n") and obs.content.rstrip().endswith("200000")
    assert run(runtime, r"printf 'a\xffb'").content == "a\ufffdb"


def test_input_is_not_supported(runtime: CLIRuntime) -> None:
    obs = runtime.run(CmdRunAction("C-c", is_input=True))
    assert isinstance(obs, ErrorObservation)
    assert obs.error_id == "AGENT_ERROR$BAD_ACTION"
    assert "is_input" in obs.content


def test_shell_stream_gets_every_line(runtime: CLIRuntime) -> None:
    lines: list[str] = []
    assert runtime.subscribe_to_shell_stream(lines.append) is True
    run(runtime, "echo one; echo two >&2; printf three")
    assert lines == ["one\n", "two\n", "three"]

    def broken(_line: str) -> None:
        raise RuntimeError("display gone")

    runtime.subscribe_to_shell_stream(broken)
    assert run(runtime, "echo still").content == "still\n"

    assert runtime.subscribe_to_shell_stream(None) is True
    lines.clear()
    run(runtime, "echo quiet")
    assert lines == []


def _wait_until_gone(pid: int, seconds: float = 60) -> None:
    """Poll until ``pid`` is gone or a zombie (signals are delivered asynchronously)."""
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return
        if state == "Z":
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} still runs")


# --- refused actions --------------------------------------------------------------------------


def test_ipython_and_browser_are_refused(runtime: CLIRuntime) -> None:
    browser_text = "Browser functionality is not implemented in CLIRuntime"
    cases = [
        (IPythonRunCellAction("print(1)"), IPYTHON_TEXT),
        (BrowseURLAction("http://localhost"), browser_text),
        (BrowseInteractiveAction(browser_actions='goto("http://localhost")'), browser_text),
    ]
    for action, text in cases:
        obs = runtime.run_action(action)
        assert isinstance(obs, ErrorObservation)
        assert obs.content == text


def test_mcp_action_through_run_action_gets_the_base_answer(runtime: CLIRuntime) -> None:
    obs = runtime.run_action(MCPAction(name="add", arguments={}))
    assert isinstance(obs, ErrorObservation)
    assert obs.content == "Action call_tool_mcp is not supported in the current runtime."


# --- read / write / edit ----------------------------------------------------------------------


def test_write_creates_parents_and_writes_exactly(runtime: CLIRuntime, ws: Path) -> None:
    obs = runtime.write(FileWriteAction("/workspace/deep/er/a.txt", "line\nno newline"))
    assert isinstance(obs, FileWriteObservation)
    assert obs.content == "" and obs.path == str(ws / "deep" / "er" / "a.txt")
    assert (ws / "deep" / "er" / "a.txt").read_text() == "line\nno newline"

    runtime.write(FileWriteAction("deep/er/a.txt", "short"))
    assert (ws / "deep" / "er" / "a.txt").read_text() == "short"


def test_write_errors_are_observations(runtime: CLIRuntime, ws: Path) -> None:
    (ws / "adir").mkdir()
    obs = runtime.write(FileWriteAction("adir", "x"))
    assert isinstance(obs, ErrorObservation)
    assert obs.content.startswith(f"Error writing to file {ws / 'adir'}")


def test_default_read(runtime: CLIRuntime, ws: Path) -> None:
    (ws / "t.txt").write_bytes(b"one\ntwo\nthree\ncaf\xc3\xa9\n")
    obs = runtime.read(FileReadAction("t.txt", start=1, end=2))
    assert isinstance(obs, FileReadObservation)
    assert obs.content == "one\ntwo\nthree\ncafé\n", "start/end are ignored"
    assert obs.path == str(ws / "t.txt")

    missing = runtime.read(FileReadAction("missing.txt"))
    assert isinstance(missing, ErrorObservation)
    assert missing.content == f"File not found: {ws / 'missing.txt'}"

    (ws / "d").mkdir()
    directory = runtime.read(FileReadAction("/workspace/d"))
    assert isinstance(directory, ErrorObservation)
    assert directory.content == f"Cannot read directory: {ws / 'd'}"

    (ws / "b.bin").write_bytes(bytes(range(256)) * 4)
    binary = runtime.read(FileReadAction("b.bin"))
    assert isinstance(binary, ErrorObservation) and binary.content == "ERROR_BINARY_FILE"


def test_editor_read(runtime: CLIRuntime, ws: Path) -> None:
    (ws / "v.txt").write_text("a\nb\nc\n")
    obs = runtime.read(
        FileReadAction("v.txt", impl_source=FileReadSource.OH_ACI, view_range=[2, 3])
    )
    assert isinstance(obs, FileReadObservation)
    assert obs.impl_source == FileReadSource.OH_ACI
    assert obs.content == (
        f"Here's the result of running `cat -n` on {ws / 'v.txt'}:\n     2\tb\n     3\tc\n"
    )
    missing = runtime.read(FileReadAction("nope.txt", impl_source=FileReadSource.OH_ACI))
    assert isinstance(missing, FileReadObservation)
    assert missing.content.startswith("ERROR:\nInvalid `path` parameter: ")


def test_editor_edits(runtime: CLIRuntime, ws: Path) -> None:
    created = runtime.edit(FileEditAction("/workspace/e.py", command="create", file_text="x = 1\n"))
    assert isinstance(created, FileEditObservation)
    assert created.content == f"File created successfully at: {ws / 'e.py'}"

    edited = runtime.edit(
        FileEditAction("e.py", command="str_replace", old_str="x = 1", new_str="x = 2")
    )
    assert isinstance(edited, FileEditObservation)
    assert edited.content.startswith(f"The file {ws / 'e.py'} has been edited.")
    assert edited.old_content == "x = 1" and edited.new_content == "x = 2"
    assert edited.impl_source == FileEditSource.OH_ACI
    assert "-x = 1\n+x = 2" in edited.diff
    assert (ws / "e.py").read_text() == "x = 2\n"

    undone = runtime.edit(FileEditAction("e.py", command="undo_edit"))
    assert undone.content.startswith(f"Last edit to {ws / 'e.py'} undone successfully.")
    assert (ws / "e.py").read_text() == "x = 1\n"

    failed = runtime.edit(FileEditAction("e.py", command="str_replace", old_str="zzz", new_str="y"))
    assert failed.content.startswith("ERROR:\nNo replacement was performed")


def test_edit_refuses_binary_files_and_the_llm_editor(runtime: CLIRuntime, ws: Path) -> None:
    (ws / "b.bin").write_bytes(bytes(range(256)) * 4)
    binary = runtime.edit(FileEditAction("b.bin", command="str_replace", old_str="a", new_str="b"))
    assert isinstance(binary, ErrorObservation) and binary.content == "ERROR_BINARY_FILE"

    llm = runtime.edit(
        FileEditAction("x.py", content="x", impl_source=FileEditSource.LLM_BASED_EDIT)
    )
    assert isinstance(llm, ErrorObservation)
    assert not (ws / "x.py").exists()


# --- copy_to / list_files / copy_from (§13.5) -------------------------------------------------


@pytest.fixture
def host(tmp_path: Path) -> Path:
    """A host-side tree to copy from: f.txt and tree/{a.txt, sub/b.txt}."""
    root = tmp_path / "host"
    (root / "tree" / "sub").mkdir(parents=True)
    (root / "f.txt").write_text("file")
    (root / "tree" / "a.txt").write_text("a")
    (root / "tree" / "sub" / "b.txt").write_text("b")
    return root


def test_copy_file_destinations(runtime: CLIRuntime, ws: Path, host: Path) -> None:
    src = str(host / "f.txt")
    (ws / "existing").mkdir()
    runtime.copy_to(src, "/workspace/existing")
    assert (ws / "existing" / "f.txt").read_text() == "file"
    runtime.copy_to(src, "/workspace/slash.d/")
    assert (ws / "slash.d" / "f.txt").read_text() == "file"
    runtime.copy_to(src, "nodot")
    assert (ws / "nodot" / "f.txt").read_text() == "file"
    runtime.copy_to(src, "renamed.txt")
    assert (ws / "renamed.txt").read_text() == "file"
    runtime.copy_to(str(ws / "renamed.txt"), "renamed.txt")  # the same file: ignored


def test_copy_directory_merges(runtime: CLIRuntime, ws: Path, host: Path) -> None:
    (ws / "dest" / "tree").mkdir(parents=True)
    (ws / "dest" / "tree" / "kept.txt").write_text("kept")
    runtime.copy_to(str(host / "tree"), "/workspace/dest", recursive=True)
    assert (ws / "dest" / "tree" / "a.txt").read_text() == "a"
    assert (ws / "dest" / "tree" / "sub" / "b.txt").read_text() == "b"
    assert (ws / "dest" / "tree" / "kept.txt").read_text() == "kept"
    with pytest.raises(RuntimeError):
        runtime.copy_to(str(host / "tree"), "/workspace/dest")


def test_copy_errors(runtime: CLIRuntime, ws: Path, host: Path, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        runtime.copy_to(str(host / "missing"), "/workspace")
    with pytest.raises(PermissionError):
        runtime.copy_to(str(host / "f.txt"), str(tmp_path / "elsewhere"))

    # A link in the workspace cannot redirect a copy outside it.
    outside = tmp_path / "outside"
    (outside / "tree").mkdir(parents=True)
    (ws / "link").symlink_to(outside)
    with pytest.raises(PermissionError):
        runtime.copy_to(str(host / "f.txt"), "link/")
    (ws / "merge").mkdir()
    (ws / "merge" / "tree").symlink_to(outside / "tree")
    with pytest.raises(RuntimeError):
        runtime.copy_to(str(host / "tree"), "merge", recursive=True)
    # Deeper down too: each file is checked where it lands.
    (ws / "deep" / "tree").mkdir(parents=True)
    (outside / "sub").mkdir()
    (ws / "deep" / "tree" / "sub").symlink_to(outside / "sub")
    with pytest.raises(RuntimeError, match="Invalid path traversal"):
        runtime.copy_to(str(host / "tree"), "deep", recursive=True)
    assert (ws / "deep" / "tree" / "a.txt").read_text() == "a"
    assert list(outside.rglob("*.txt")) == []


def test_list_files(runtime: CLIRuntime, ws: Path) -> None:
    (ws / "b.txt").write_text("b")
    (ws / "a").mkdir()
    (ws / "a" / "inner.txt").write_text("i")
    assert runtime.list_files() == [str(ws / "a"), str(ws / "b.txt")]
    assert runtime.list_files("/workspace/a") == [str(ws / "a" / "inner.txt")]
    assert runtime.list_files("b.txt") == [str(ws / "b.txt")]
    assert runtime.list_files("missing") == []
    with pytest.raises(PermissionError):
        runtime.list_files("/etc")


def test_copy_from(runtime: CLIRuntime, ws: Path) -> None:
    (ws / "pkg" / "sub").mkdir(parents=True)
    (ws / "pkg" / "top.txt").write_text("top")
    (ws / "pkg" / "sub" / "low.txt").write_text("low")
    archive_path = runtime.copy_from("/workspace/pkg")
    try:
        with zipfile.ZipFile(archive_path) as archive:
            assert sorted(n for n in archive.namelist() if not n.endswith("/")) == [
                "sub/low.txt",
                "top.txt",
            ]
            assert archive.read("sub/low.txt") == b"low"
    finally:
        archive_path.unlink()

    single = runtime.copy_from("pkg/top.txt")
    try:
        with zipfile.ZipFile(single) as archive:
            assert archive.namelist() == ["top.txt"]
    finally:
        single.unlink()

    with pytest.raises(FileNotFoundError):
        runtime.copy_from("missing")
    with pytest.raises(PermissionError):
        runtime.copy_from("/etc")


# --- MCP --------------------------------------------------------------------------------------


def test_get_mcp_config_adds_extra_servers_in_place(runtime: CLIRuntime) -> None:
    first = MCPStdioServerConfig(name="one", command="true")
    again = MCPStdioServerConfig(name="one", command="false")
    second = MCPStdioServerConfig(name="two", command="true")
    config = runtime.get_mcp_config([first])
    assert config is runtime.config.mcp
    assert runtime.get_mcp_config([again, second]) is config
    assert [(s.name, s.command) for s in config.stdio_servers] == [("one", "true"), ("two", "true")]
    assert runtime.get_mcp_config().stdio_servers == config.stdio_servers


def test_mcp_without_servers(runtime: CLIRuntime) -> None:
    obs = asyncio.run(runtime.call_tool_mcp(MCPAction(name="add", arguments={})))
    assert isinstance(obs, ErrorObservation)
    assert obs.content == "No MCP servers configured"


def test_mcp_with_no_reachable_server(runtime: CLIRuntime) -> None:
    url = f"http://127.0.0.1:{free_port()}/sse"
    runtime.config.mcp.sse_servers = [MCPSSEServerConfig(url=url)]
    obs = asyncio.run(runtime.call_tool_mcp(MCPAction(name="add", arguments={})))
    assert isinstance(obs, ErrorObservation)
    assert obs.content == "No MCP clients could be created - check server configurations"


def test_mcp_stdio_server_runs_on_the_host(runtime: CLIRuntime) -> None:
    runtime.get_mcp_config([MCPStdioServerConfig(**stdio_command())])
    obs = asyncio.run(runtime.call_tool_mcp(MCPAction(name="add", arguments={"a": 2, "b": 40})))
    assert isinstance(obs, MCPObservation), obs
    assert json.loads(obs.content)["content"][0]["text"] == "42"

    missing = asyncio.run(runtime.call_tool_mcp(MCPAction(name="nope", arguments={})))
    assert isinstance(missing, ErrorObservation)
    assert missing.content.startswith("Error executing MCP tool nope: ")
