"""The reference's runtime utilities (python-api.md §9): command line, git handler, log
streamer, request helper, bash escaping, the AgentSkills file viewer path, and the
Runtime members, with real git repositories, tmux, HTTP servers, Docker and LocalRuntime."""

from __future__ import annotations

import asyncio
import inspect
import json
import queue
import shutil
import subprocess
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from unittest.mock import patch

import httpx
import pytest
from tenacity import wait_none

from openhands.core.config import MCPConfig, MCPSSEServerConfig, OpenHandsConfig
from openhands.events.action import MCPAction
from openhands.events.observation import ErrorObservation, MCPObservation
from openhands.runtime.base import Runtime
from openhands.runtime.plugins.agent_skills import agentskills
from openhands.runtime.plugins.agent_skills import file_ops as old_file_ops
from openhands.runtime.plugins.agent_skills.file_ops import file_ops
from openhands.runtime.utils import bash, bash_commands
from openhands.runtime.utils.bash_commands import escape_bash_special_chars, split_bash_commands
from openhands.runtime.utils.command import (
    DEFAULT_MAIN_MODULE,
    DEFAULT_PYTHON_PREFIX,
    get_action_execution_server_startup_command,
)
from openhands.runtime.utils.git_handler import (
    GIT_BRANCH_CMD,
    GIT_CHANGES_CMD,
    GIT_DIFF_CMD,
    CommandResult,
    GitHandler,
)
from openhands.runtime.utils.log_streamer import LogStreamer
from openhands.runtime.utils.request import RequestHTTPError, send_request
from tests.runtime.conformance import Sandbox, open_sandbox, require_docker
from tests.support.mcp_server import TEST_API_KEY as MCP_KEY
from tests.support.mcp_server import MCPTestServer

# --- command ----------------------------------------------------------------------------------


@pytest.fixture
def no_runtime_user_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RUNTIME_USERNAME", raising=False)
    monkeypatch.delenv("RUNTIME_UID", raising=False)


def test_startup_command_defaults(no_runtime_user_env: None) -> None:
    config = OpenHandsConfig()
    assert DEFAULT_MAIN_MODULE == "openhands.runtime.action_execution_server"
    assert DEFAULT_PYTHON_PREFIX == []

    command = get_action_execution_server_startup_command(
        60000, ["agent_skills", "jupyter", "agent_skills"], config
    )

    assert command == [
        "python",
        "-u",
        "-m",
        DEFAULT_MAIN_MODULE,
        "60000",
        "--working-dir",
        "/workspace",
        "--plugins",
        "agent_skills",
        "jupyter",
        "--username",
        "openhands",
        "--user-id",
        "1000",
    ]


def test_startup_command_options(no_runtime_user_env: None) -> None:
    config = OpenHandsConfig(run_as_openhands=False, enable_browser=False)
    config.sandbox.browsergym_eval_env = "browsergym/miniwob.click-test"
    command = get_action_execution_server_startup_command(
        8080,
        [],
        config,
        python_prefix=["env", "X=1"],
        main_module="my.server",
        python_executable="/opt/py",
    )
    assert command == [
        "env",
        "X=1",
        "/opt/py",
        "-u",
        "-m",
        "my.server",
        "8080",
        "--working-dir",
        "/workspace",
        "--username",
        "root",
        "--user-id",
        "0",
        "--browsergym-eval-env",
        "browsergym/miniwob.click-test",
        "--no-enable-browser",
    ]


def test_startup_command_user_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    config = OpenHandsConfig()
    monkeypatch.setenv("RUNTIME_USERNAME", "alice")
    monkeypatch.setenv("RUNTIME_UID", "1234")
    from_env = get_action_execution_server_startup_command(1, [], config)
    assert from_env[-4:] == ["--username", "alice", "--user-id", "1234"]

    overridden = get_action_execution_server_startup_command(
        1, [], config, override_user_id=0, override_username="bob"
    )
    assert overridden[-4:] == ["--username", "bob", "--user-id", "0"]


# --- git handler (a real repository, a real shell) --------------------------------------------


def shell(command: str, cwd: str | None) -> CommandResult:
    done = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, check=False)
    return CommandResult(done.stdout + done.stderr, done.returncode)


def write_file(path: str, content: str) -> int:
    Path(path).write_text(content)
    return 0


def git(cwd: Path, command: str) -> None:
    subprocess.run(command, shell=True, cwd=cwd, check=True, capture_output=True)


def new_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    git(
        root, "git init -q -b main && git config user.email t@example.com && git config user.name T"
    )
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A clone (so there is an ``origin``) with a modified, a deleted and a new file."""
    origin = new_repo(tmp_path / "origin")
    (origin / "kept.txt").write_text("one\n")
    (origin / "gone.txt").write_text("bye\n")
    git(origin, "git add . && git commit -qm init")
    root = tmp_path / "repo"
    git(tmp_path, f"git clone -q {origin} {root}")
    git(root, "git config user.email t@example.com && git config user.name T")
    (root / "kept.txt").write_text("two\n")
    (root / "gone.txt").unlink()
    (root / "new.txt").write_text("fresh\n")
    return root


def local_handler(cwd: Path) -> GitHandler:
    handler = GitHandler(shell, write_file, scripts_dir=str(Path(bash_commands.__file__).parent))
    handler.set_cwd(str(cwd))
    return handler


def test_git_changes_of_a_feature_branch_stop_at_what_was_pushed(repo: Path) -> None:
    handler = local_handler(repo)
    git(repo, "git checkout -q -b feature && git add -A && git commit -qm work")
    (repo / "later.txt").write_text("later\n")

    # Not pushed yet: compared with the default branch on origin.
    assert handler.get_git_changes() == [
        {"status": "D", "path": "gone.txt"},
        {"status": "M", "path": "kept.txt"},
        {"status": "A", "path": "later.txt"},
        {"status": "A", "path": "new.txt"},
    ]
    # Pushed: only what came after the push.
    git(repo, "git push -q -u origin feature")
    assert handler.get_git_changes() == [{"status": "A", "path": "later.txt"}]
    assert handler.get_git_diff(str(repo / "kept.txt")) == {
        "modified": "two\n",
        "original": "two\n",
    }


def test_git_changes_of_a_repository_without_remote_list_every_file(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "solo")
    (root / "a.txt").write_text("a\n")
    git(root, "git add . && git commit -qm one")
    nested = new_repo(root / "inner repo")
    (nested / "b.txt").write_text("b\n")
    git(nested, "git add . && git commit -qm one")
    (nested / "c.txt").write_text("c\n")
    handler = local_handler(root)

    # Never pushed: everything counts as added, file by file inside the nested repository too.
    assert handler.get_git_changes() == [
        {"status": "A", "path": "a.txt"},
        {"status": "A", "path": "inner repo/b.txt"},
        {"status": "A", "path": "inner repo/c.txt"},
    ]
    assert handler.get_git_diff(str(root / "a.txt")) == {"modified": "a\n", "original": ""}


def test_git_handler_constants() -> None:
    assert GIT_BRANCH_CMD == "git branch --show-current"
    assert GIT_CHANGES_CMD.endswith("git_changes.py")
    assert "{file_path}" in GIT_DIFF_CMD


def test_git_handler_without_a_cwd_knows_nothing() -> None:
    handler = GitHandler(shell, write_file)
    assert handler.get_current_branch() is None
    assert handler.get_git_changes() is None


def test_git_handler_reports_branch_changes_and_diff(repo: Path) -> None:
    local_scripts = str(Path(bash_commands.__file__).parent)
    handler = GitHandler(shell, write_file, scripts_dir=local_scripts)
    handler.set_cwd(str(repo))

    assert handler.get_current_branch() == "main"
    assert handler.get_git_changes() == [
        {"status": "D", "path": "gone.txt"},
        {"status": "M", "path": "kept.txt"},
        {"status": "A", "path": "new.txt"},
    ]
    assert handler.get_git_diff(str(repo / "kept.txt")) == {
        "modified": "two\n",
        "original": "one\n",
    }


def test_git_handler_writes_missing_scripts_into_a_temp_dir(repo: Path) -> None:
    written: list[str] = []

    def create(path: str, content: str) -> int:
        written.append(path)
        return write_file(path, content)

    # The sandbox image's script dir does not exist on this host: the scripts are written.
    handler = GitHandler(shell, create)
    handler.set_cwd(str(repo))

    changes = handler.get_git_changes()

    assert changes is not None and {"status": "M", "path": "kept.txt"} in changes
    assert sorted(Path(p).name for p in written) == ["git_changes.py", "git_diff.py"]
    assert handler.get_git_diff(str(repo / "new.txt"))["modified"] == "fresh\n"
    assert len(written) == 2  # written once, then reused
    big = repo / "big.txt"
    big.write_text("x" * (1024 * 1024 + 1))
    with pytest.raises(ValueError, match=r"error_in_git_diff: .*larger than 1 MB"):
        handler.get_git_diff(str(big))


# --- Runtime members, on a real LocalRuntime --------------------------------------------------


def test_call_tool_mcp_is_a_coroutine_function() -> None:
    assert inspect.iscoroutinefunction(Runtime.call_tool_mcp)


@pytest.fixture(scope="module")
def mcp_server() -> Iterator[MCPTestServer]:
    with MCPTestServer("sse", api_key=MCP_KEY) as server:
        yield server


@pytest.fixture(scope="module")
def local(mcp_server: MCPTestServer) -> Iterator[Sandbox]:
    def configure(config: OpenHandsConfig) -> None:
        config.mcp = MCPConfig(
            sse_servers=[MCPSSEServerConfig(url=mcp_server.url, api_key=MCP_KEY)]
        )

    with open_sandbox("local", plugins=[], configure=configure) as sandbox:
        yield sandbox


def test_runtime_call_tool_mcp_is_awaited(local: Sandbox) -> None:
    observation = asyncio.run(
        local.runtime.call_tool_mcp(MCPAction(name="add", arguments={"a": 20, "b": 22}))
    )
    assert isinstance(observation, MCPObservation)
    assert json.loads(observation.content)["content"][0]["text"] == "42"

    missing = asyncio.run(local.runtime.call_tool_mcp(MCPAction(name="nope")))
    assert isinstance(missing, ErrorObservation)
    assert missing.content == "MCP tool 'nope' is not offered by any reachable MCP server."


def test_an_mcp_action_on_the_stream_gets_its_observation(local: Sandbox) -> None:
    observation = local.via_stream(MCPAction(name="add", arguments={"a": 1, "b": 2}))
    assert isinstance(observation, MCPObservation)
    assert json.loads(observation.content)["content"][0]["text"] == "3"


def test_runtime_mcp_config_and_shell_stream(local: Sandbox, mcp_server: MCPTestServer) -> None:
    config = local.runtime.get_mcp_config()
    assert config is not local.runtime.config.mcp
    assert [s.url for s in config.sse_servers] == [mcp_server.url]
    assert local.runtime.subscribe_to_shell_stream() is False
    assert local.runtime.subscribe_to_shell_stream(lambda line: None) is False


def test_runtime_git_helpers_use_the_handler(local: Sandbox) -> None:
    repo = f"{local.workspace}/git-helpers"
    local.sh(
        f"rm -rf {repo} && mkdir -p {repo} && cd {repo} && git init -q -b trunk && "
        "git config user.email t@example.com && git config user.name T && "
        "echo a > f.txt && git add f.txt && git commit -qm one && echo b > f.txt"
    )
    runtime = local.runtime

    assert runtime.get_workspace_branch(repo) == "trunk"
    # No remote: compared with the empty tree.
    assert runtime.get_git_changes(repo) == [{"status": "A", "path": "f.txt"}]
    assert runtime.get_git_diff(f"{repo}/f.txt", repo) == {"modified": "b\n", "original": ""}
    assert isinstance(runtime.git_handler, GitHandler)


# --- log streamer (a real container) ----------------------------------------------------------


def test_log_streamer_forwards_container_output_until_closed() -> None:
    require_docker()
    import docker

    client = docker.from_env()
    image = "openhands-sandbox-base:bookworm"
    try:
        client.images.get(image)
    except docker.errors.ImageNotFound:
        pytest.skip(f"{image} is not built here (make build builds it)")
    container = client.containers.run(
        image,
        ["sh", "-c", "echo first line; echo second line; exec sleep 300"],
        name=f"openhands-test-logs-{uuid.uuid4().hex[:8]}",
        detach=True,
    )
    lines: queue.Queue[tuple[str, str]] = queue.Queue()
    try:
        streamer = LogStreamer(container, lambda level, line: lines.put((level, line)))
        assert lines.get(timeout=30) == ("debug", "[inside container] first line")
        assert lines.get(timeout=30) == ("debug", "[inside container] second line")

        streamer.close(timeout=10)

        assert streamer.stdout_thread is not None and not streamer.stdout_thread.is_alive()
        assert lines.empty()
    finally:
        container.remove(force=True)


def test_log_streamer_reports_a_container_without_logs() -> None:
    class Gone:
        def logs(self, **kwargs: Any) -> Any:
            raise RuntimeError("container is gone")

    seen: list[tuple[str, str]] = []
    streamer = LogStreamer(Gone(), lambda level, line: seen.append((level, line)))
    streamer.close()
    assert seen == [("error", "Failed to initialize log streaming: container is gone")]


def test_log_streamer_without_a_stream_says_so_and_is_safe_to_collect() -> None:
    class Gone:
        def logs(self, **kwargs: Any) -> Any:
            raise RuntimeError("container is gone")

    seen: list[tuple[str, str]] = []
    streamer = LogStreamer(Gone(), lambda level, line: seen.append((level, line)))
    streamer._stream_logs()  # a thread started on a streamer that never got its stream
    assert seen[-1] == ("error", "Log generator not initialized")
    del streamer.stdout_thread
    streamer.__del__()  # no thread attribute at all: nothing to stop, no error


# --- request ------------------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    # path -> list of (status, body) answered in turn; the last one repeats.
    script: dict[str, list[tuple[int, str]]] = {}
    hits: dict[str, int] = {}

    def do_GET(self) -> None:
        answers = self.script[self.path]
        count = self.hits.get(self.path, 0)
        self.hits[self.path] = count + 1
        status, body = answers[min(count, len(answers) - 1)]
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        return None


@pytest.fixture
def http_server() -> Iterator[str]:
    _Handler.script = {
        "/ok": [(200, '{"fine": true}')],
        "/busy": [(429, "{}"), (429, "{}"), (200, '{"fine": true}')],
        "/always-busy": [(429, '{"detail": "slow down"}')],
        "/missing": [(404, '{"detail": "no such runtime"}')],
        "/broken": [(500, "not json")],
    }
    _Handler.hits = {}
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


# The real waits are 4-60 s; the tests keep the retry rule and drop the wait.
quick_send = send_request.retry_with(wait=wait_none())  # type: ignore[attr-defined]


def test_send_request_returns_the_response(http_server: str) -> None:
    with httpx.Client() as session:
        response = send_request(session, "GET", f"{http_server}/ok", timeout=10)
    assert response.json() == {"fine": True}


def test_send_request_retries_429_three_times_in_all(http_server: str) -> None:
    with httpx.Client() as session:
        assert quick_send(session, "GET", f"{http_server}/busy").json() == {"fine": True}
        assert _Handler.hits["/busy"] == 3
        with pytest.raises(RequestHTTPError) as caught:
            quick_send(session, "GET", f"{http_server}/always-busy")
    assert _Handler.hits["/always-busy"] == 3
    assert caught.value.response.status_code == 429 and caught.value.detail == "slow down"


def test_send_request_errors_carry_the_detail(http_server: str) -> None:
    with httpx.Client() as session:
        with pytest.raises(RequestHTTPError) as missing:
            quick_send(session, "GET", f"{http_server}/missing")
        with pytest.raises(RequestHTTPError) as broken:
            quick_send(session, "GET", f"{http_server}/broken")
    assert isinstance(missing.value, httpx.HTTPStatusError)
    assert missing.value.detail == "no such runtime"
    assert str(missing.value).endswith("Details: no such runtime")
    assert _Handler.hits["/missing"] == 1
    assert broken.value.detail is None and "Details" not in str(broken.value)


# --- bash escaping (checklist 24) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("find . -exec ls {} \\;", "find . -exec ls {} \\\\;"),
        ("a \\> b \\< c \\| d \\& e", "a \\\\> b \\\\< c \\\\| d \\\\& e"),
        # Quoted words, substitutions and heredoc bodies stay as they are.
        ("echo 'x\\;' \"y\\;\" z\\;", "echo 'x\\;' \"y\\;\" z\\\\;"),
        ("echo $(echo a\\;b) `echo c\\;`", "echo $(echo a\\;b) `echo c\\;`"),
        ("cat <<EOF\na\\;\nEOF\necho b\\;", "cat <<EOF\na\\;\nEOF\necho b\\\\;"),
        # An escaped backslash before `;` is no escape of `;`.
        ("echo a\\\\; ls", "echo a\\\\; ls"),
        ("echo plain; ls", "echo plain; ls"),
        ("   \n", ""),
        ("", ""),
        # bashlex cannot parse it: unchanged.
        ('echo "unterminated \\;', 'echo "unterminated \\;'),
    ],
)
def test_escape_bash_special_chars(command: str, expected: str) -> None:
    assert escape_bash_special_chars(command) == expected


def test_bash_module_reexports_the_same_functions() -> None:
    assert bash.escape_bash_special_chars is escape_bash_special_chars
    assert bash.split_bash_commands is split_bash_commands
    assert split_bash_commands("a\nb") == ["a", "b"]


def test_the_escaped_semicolon_survives_tmux(tmp_path: Path) -> None:
    """Typed through `tmux send-keys` as the reference does, find's `\\;` still works;
    typed unescaped, tmux eats the backslash and find fails."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    (tmp_path / "hit.txt").write_text("")
    out = tmp_path / "out.txt"
    socket = f"oh-escape-test-{uuid.uuid4().hex[:8]}"
    tmux = ["tmux", "-L", socket]
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", "200", "-y", "50", "env PS1= bash --norc --noprofile"],
        check=True,
    )

    def type_line(text: str) -> None:
        subprocess.run([*tmux, "send-keys", "-t", "0", text, "Enter"], check=True)

    def wait_for(marker: str) -> list[str]:
        # Poll the file the shell writes, bounded by a deadline.
        finished = threading.Event()

        def poll() -> None:
            while not finished.is_set():
                if out.exists() and marker in out.read_text():
                    finished.set()
                    return
                finished.wait(0.05)

        threading.Thread(target=poll, daemon=True).start()
        assert finished.wait(30), f"{marker!r} never appeared"
        return [line.strip() for line in out.read_text().splitlines() if line.strip()]

    try:
        type_line(f"cd {tmp_path} && exec > {out} 2>&1")
        command = "find . -name hit.txt -exec echo found {} \\;"

        type_line(escape_bash_special_chars(command))
        type_line("echo escaped-done")
        lines = wait_for("escaped-done")
        assert "found ./hit.txt" in lines

        type_line(command)
        type_line("echo raw-done")
        lines = wait_for("raw-done")
        after_escaped = lines[lines.index("escaped-done") + 1 :]
        assert "found ./hit.txt" not in after_escaped
        assert any("-exec" in line for line in after_escaped)  # find's complaint
    finally:
        subprocess.run([*tmux, "kill-server"], check=False)


# --- the AgentSkills file viewer module path --------------------------------------------------------


def test_file_ops_module_path_and_names() -> None:
    assert file_ops.WINDOW == 100
    assert "{line_number}" in file_ops.MSG_FILE_UPDATED
    assert file_ops.LINTER_ERROR_MSG.startswith("[Your proposed edit has introduced")
    assert issubclass(file_ops.LineNumberError, Exception)
    # The old path and the kernel's star-import module give the same functions.
    for name in ("open_file", "goto_line", "scroll_down", "scroll_up", "search_dir"):
        assert getattr(old_file_ops, name) is getattr(file_ops, name)
        assert getattr(agentskills, name) is getattr(file_ops, name)
    for name in ("search_file", "find_file", "WINDOW", "LineNumberError"):
        assert getattr(old_file_ops, name) is getattr(file_ops, name)


def test_print_window_is_patched_through_the_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(file_ops, "CURRENT_FILE", None)
    monkeypatch.setattr(file_ops, "CURRENT_LINE", 1)
    path = tmp_path / "f.txt"
    path.write_text("".join(f"{i}\n" for i in range(1, 301)))
    target = "openhands.runtime.plugins.agent_skills.file_ops.file_ops._print_window"

    with patch(target, return_value="<window>") as print_window:
        file_ops.open_file(str(path), 150)
        file_ops.scroll_down()
        file_ops.scroll_up()
        file_ops.goto_line(7)

    assert [c.args for c in print_window.call_args_list] == [
        (str(path), 150, 100),
        (str(path), 250, 100),
        (str(path), 150, 100),
        (str(path), 7, 100),
    ]
    # Each call printed the file header before the (patched) window.
    assert capsys.readouterr().out.count(f"[File: {path} (300 lines total)]\n<window>") == 4
    # The state is the module's, and the old path reads it live.
    assert (str(path), 7) == (file_ops.CURRENT_FILE, file_ops.CURRENT_LINE)
    assert str(path) == old_file_ops.CURRENT_FILE and old_file_ops.CURRENT_LINE == 7

    file_ops.goto_line(301)
    assert capsys.readouterr().out == ("ERROR: Line number must be between 1 and 300.\n")
