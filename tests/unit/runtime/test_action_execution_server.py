"""The action execution server as a real subprocess on the host, over real HTTP (runtime.md §3)."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from openhands.runtime.utils.runtime_hash import PROJECT_ROOT

KEY = "test-session-key"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("workspace")


@pytest.fixture(scope="module")
def server(workspace: Path) -> Iterator[str]:
    port = free_port()
    user = os.environ.get("USER") or "root"
    env = dict(os.environ, SESSION_API_KEY=KEY, NO_CHANGE_TIMEOUT_SECONDS="1", SU_TO_USER="false")
    command = [
        sys.executable, "-u", "-m", "openhands.runtime.action_execution_server", str(port),
        "--working-dir", str(workspace), "--username", user, "--user-id", str(os.getuid()),
        "--no-enable-browser",
    ]  # fmt: skip
    proc = subprocess.Popen(
        command, cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read().decode() if proc.stdout else ""
            pytest.fail(f"server exited early:\n{out}")
        try:
            if httpx.get(f"{url}/alive", timeout=2).json() == {"status": "ok"}:
                break
        except httpx.HTTPError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("server never became alive")
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def client(url: str, key: str | None = KEY) -> httpx.Client:
    headers = {"X-Session-API-Key": key} if key else {}
    return httpx.Client(base_url=url, headers=headers, timeout=60)


def execute(server_url: str, action: str, timeout: float = 30, **args: Any) -> dict[str, Any]:
    body = {"action": {"action": action, "args": args, "timeout": timeout}}
    response = client(server_url).post("/execute_action", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_open_paths_need_no_key(server: str) -> None:
    anonymous = client(server, key=None)
    assert anonymous.get("/alive").json() == {"status": "ok"}
    info = anonymous.get("/server_info").json()
    assert set(info) == {"uptime", "idle_time", "resources"}
    assert set(info["resources"]) == {"cpu_percent", "memory", "disk", "io"}


def test_wrong_key_is_refused(server: str) -> None:
    body = {"action": {"action": "run", "args": {"command": "ls"}}}
    for key in (None, "wrong"):
        response = client(server, key=key).post("/execute_action", json=body)
        assert response.status_code == 403
        assert response.json() == {"detail": "Invalid API Key"}


def test_run_echo(server: str, workspace: Path) -> None:
    obs = execute(server, "run", command="echo hello")
    assert obs["observation"] == "run"
    assert obs["content"] == "hello"
    assert obs["success"] is True
    meta = obs["extras"]["metadata"]
    assert meta["exit_code"] == 0
    assert meta["working_dir"] == str(workspace)
    assert meta["suffix"] == "\n[The command completed with exit code 0.]"


def test_static_command_runs_in_its_own_session(server: str, tmp_path: Path) -> None:
    obs = execute(server, "run", command="pwd", is_static=True, cwd=str(tmp_path))
    assert obs["content"] == str(tmp_path)


def test_multiple_commands_error(server: str) -> None:
    obs = execute(server, "run", command="echo a\necho b")
    assert obs["observation"] == "error"
    assert obs["content"].startswith("ERROR: Cannot execute multiple commands at once.")


def test_write_then_read(server: str, workspace: Path) -> None:
    written = execute(server, "write", path="hello.sh", content='echo "Hello, World!"')
    assert written["observation"] == "write"
    assert written["extras"]["path"] == str(workspace / "hello.sh")
    read = execute(server, "read", path="hello.sh")
    assert read["content"] == 'echo "Hello, World!"\n'
    missing = execute(server, "read", path="nope.txt")
    assert missing["observation"] == "error"
    assert "File not found" in missing["content"]
    assert "Your current working directory is" in missing["content"]


def test_editor_round_trip(server: str, workspace: Path) -> None:
    path = str(workspace / "ed.txt")
    created = execute(server, "edit", path=path, command="create", file_text="test\ntest\n")
    assert created["content"] == f"File created successfully at: {path}"
    assert created["extras"]["impl_source"] == "oh_aci"
    dup = execute(server, "edit", path=path, command="str_replace", old_str="test", new_str="x")
    assert dup["content"].startswith("ERROR:\nNo replacement was performed. Multiple occurrences")
    viewed = execute(server, "read", path=path, impl_source="oh_aci", view_range=[1, 1])
    assert viewed["content"].endswith("     1\ttest\n")


def test_browser_disabled(server: str) -> None:
    obs = execute(server, "browse", url="http://localhost:1")
    assert obs["observation"] == "error"
    assert obs["content"] == "Browser functionality is not supported or disabled."


def test_error_statuses(server: str) -> None:
    http = client(server)
    response = http.post("/execute_action", json={"nothing": 1})
    assert response.status_code == 422
    assert response.json()["detail"] == "Invalid request parameters"
    message = {"action": {"action": "message", "args": {"content": "hi"}}}
    response = http.post("/execute_action", json=message)
    assert response.status_code == 500
    assert response.json()["detail"].startswith("Internal server error: ")
    ipython = {"action": {"action": "run_ipython", "args": {"code": "1"}}}
    response = http.post("/execute_action", json=ipython)
    assert response.status_code == 500
    assert "JupyterRequirement not found" in response.json()["detail"]


def test_file_transfer(server: str, workspace: Path) -> None:
    http = client(server)
    dest = str(workspace / "up" / "new")
    response = http.post(
        "/upload_file",
        params={"destination": dest},
        files={"file": ("one.txt", b"one\n")},
    )
    assert response.json() == {"filename": "one.txt", "destination": dest, "recursive": False}
    assert (workspace / "up" / "new" / "one.txt").read_text() == "one\n"

    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("pkg/file1.txt", "1")
    response = http.post(
        "/upload_file",
        params={"destination": dest, "recursive": "true"},
        files={"file": ("pkg.zip", archive.getvalue())},
    )
    assert response.status_code == 200
    assert (workspace / "up" / "new" / "pkg" / "file1.txt").read_text() == "1"

    listing = http.post("/list_files", json={"path": "up/new"}).json()
    assert listing == ["pkg/", "one.txt"]
    assert http.post("/list_files", json={"path": "missing"}).json() == []

    zipped = http.get("/download_files", params={"path": dest})
    assert zipped.headers["content-type"] == "application/zip"
    names = sorted(zipfile.ZipFile(io.BytesIO(zipped.content)).namelist())
    assert names == ["one.txt", "pkg/file1.txt"]
    single = http.get("/download_files", params={"path": f"{dest}/one.txt"})
    assert zipfile.ZipFile(io.BytesIO(single.content)).namelist() == ["one.txt"]

    assert http.get("/download_files", params={"path": "relative"}).status_code == 400
    assert http.get("/download_files", params={"path": "/no/such"}).status_code == 404
    bad = http.post("/upload_file", params={"destination": "rel"}, files={"file": ("a", b"")})
    assert bad.status_code == 400


def test_mcp_and_vscode_endpoints(server: str) -> None:
    http = client(server)
    assert http.get("/vscode/connection_token").json() == {"token": None}
    assert http.post("/update_mcp_server", json={"not": "a list"}).status_code == 400
    done = http.post("/update_mcp_server", json=[]).json()
    assert done == {"detail": "MCP server updated successfully", "router_error_log": ""}


def test_file_viewer_side_server(server: str) -> None:
    url = Path("/tmp/oh-server-url").read_text()
    assert httpx.get(url).json() == {"status": "File viewer server is running"}


class _Stop(Exception):
    pass


def test_port_is_held_before_anything_else_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The Jupyter kernel and other sandbox processes take ports from the range the host
    picked the server's port from; the server must hold its port before they start."""
    from openhands.runtime import action_execution_server as entry

    port = free_port()
    seen: list[str] = []

    def first_thing_started(server_port: int) -> None:
        assert server_port == port
        # A port picker's plain bind (no reuse flags) fails; a client is refused (bound,
        # not listening yet).
        with socket.socket() as other, pytest.raises(OSError):
            other.bind(("0.0.0.0", port))
        with socket.socket() as client, pytest.raises(ConnectionRefusedError):
            client.connect(("127.0.0.1", port))
        seen.append("checked")
        raise _Stop

    monkeypatch.setattr(entry, "start_file_viewer", first_thing_started)
    with pytest.raises(_Stop):
        entry.main([str(port), "--working-dir", str(tmp_path), "--no-enable-browser"])
    assert seen == ["checked"]
