"""Conformance §17 items 1, 21 and 22: readiness, auth, browser (disabled), file transfer."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import httpx
import pytest

from openhands.events.action import BrowseInteractiveAction, BrowseURLAction
from openhands.events.observation import ErrorObservation
from tests.runtime.conformance import Sandbox

pytestmark = pytest.mark.timeout(300)


# --- item 1: /alive only after start-up; key required --------------------------------------


def test_alive_answers_ok_only_when_everything_is_ready(shared_sandbox: Sandbox) -> None:
    boot = shared_sandbox.boot
    assert boot is not None
    # Until start-up has finished the port refuses connections; the first answer is "ok".
    assert boot.answers[-1] == '{"status":"ok"}'
    assert all(answer in ("refused", '{"status":"ok"}') for answer in boot.answers)
    # The moment /alive says ok, the plugins and bash already work.
    assert boot.first_ipython is not None and boot.first_ipython.startswith("42\n")
    assert boot.first_echo == "ready"


def test_session_key_is_required_except_for_alive_and_server_info(
    shared_sandbox: Sandbox,
) -> None:
    runtime = shared_sandbox.runtime
    assert runtime.session_api_key
    url = runtime.action_execution_server_url
    body = {"action": {"action": "run", "args": {"command": "echo hi"}, "timeout": 10}}
    with httpx.Client(timeout=30) as client:
        assert client.get(f"{url}/alive").json() == {"status": "ok"}
        info = client.get(f"{url}/server_info")
        assert info.status_code == 200
        assert {"uptime", "idle_time", "resources"} <= set(info.json())
        allowed = client.post(
            f"{url}/execute_action",
            json=body,
            headers={"X-Session-API-Key": runtime.session_api_key},
        )
        assert allowed.status_code == 200
        assert allowed.json()["content"] == "hi"


def _guarded_requests(sandbox: Sandbox, marker: str) -> dict[str, dict[str, object]]:
    """One request per key-protected endpoint; each would change or reveal something."""
    workspace = sandbox.workspace
    return {
        "/execute_action": {
            "method": "POST",
            "json": {"action": {"action": "run", "args": {"command": f"touch {marker}"}}},
        },
        "/list_files": {"method": "POST", "json": {"path": workspace}},
        "/upload_file": {
            "method": "POST",
            "params": {"destination": workspace},
            "files": {"file": (os.path.basename(marker), b"uploaded without a key")},
        },
        "/download_files": {"method": "GET", "params": {"path": workspace}},
    }


@pytest.mark.parametrize(
    "headers",
    [{}, {"X-Session-API-Key": "wrong"}, {"X-Session-API-Key": ""}],
    ids=["missing", "wrong", "empty"],
)
def test_every_guarded_endpoint_refuses_a_bad_key(
    shared_sandbox: Sandbox, headers: dict[str, str]
) -> None:
    """§3.5: 403 {"detail":"Invalid API Key"} on all four endpoints, and nothing happens."""
    runtime = shared_sandbox.runtime
    marker = f"{shared_sandbox.workspace}/written-without-key-{os.urandom(4).hex()}"
    url = runtime.action_execution_server_url
    with httpx.Client(timeout=30) as client:
        for path, request in _guarded_requests(shared_sandbox, marker).items():
            response = client.request(url=f"{url}{path}", headers=headers, **request)  # type: ignore[arg-type]
            assert response.status_code == 403, (path, response.text)
            assert response.json() == {"detail": "Invalid API Key"}, path
    assert os.path.basename(marker) not in runtime.list_files(shared_sandbox.workspace)


# --- item 21: browser ---------------------------------------------------------------------
# The enabled path (BrowserGym on Debian Chromium) belongs to the browser issue; these
# runtimes start with the browser disabled.


def test_browse_answers_disabled_error(sandbox: Sandbox) -> None:
    for action in (
        BrowseURLAction("http://localhost:8000"),
        BrowseInteractiveAction('goto("http://localhost:8000")'),
    ):
        obs = sandbox.via_stream(action)
        assert isinstance(obs, ErrorObservation)
        assert obs.content == "Browser functionality is not supported or disabled."


# --- item 22: file transfer ---------------------------------------------------------------


def test_copy_to_creates_missing_destination(
    sandbox: Sandbox, test_dir: str, tmp_path: Path
) -> None:
    source = tmp_path / "single.txt"
    source.write_text("one file\n")
    destination = f"{test_dir}/new/deeper"
    sandbox.runtime.copy_to(str(source), destination)
    assert sandbox.sh(f"cat {destination}/single.txt").content == "one file"


def test_copy_to_recursive_keeps_directory_name(
    sandbox: Sandbox, test_dir: str, tmp_path: Path
) -> None:
    folder = tmp_path / "folder"
    (folder / "inner").mkdir(parents=True)
    (folder / "file1.txt").write_text("first\n")
    (folder / "inner" / "file2.txt").write_text("second\n")
    sandbox.runtime.copy_to(str(folder), test_dir, recursive=True)
    assert sandbox.sh(f"cat {test_dir}/folder/file1.txt").content == "first"
    assert sandbox.sh(f"cat {test_dir}/folder/inner/file2.txt").content == "second"


def test_copy_to_missing_source_raises(sandbox: Sandbox, test_dir: str) -> None:
    with pytest.raises(FileNotFoundError):
        sandbox.runtime.copy_to("/no/such/host/file", test_dir)


def test_list_files_orders_directories_first(sandbox: Sandbox, test_dir: str) -> None:
    sandbox.sh(f"cd {test_dir} && mkdir -p zdir Adir .hidden_dir && touch b.txt a.txt .hidden_file")
    assert sandbox.runtime.list_files(test_dir) == [
        ".hidden_dir/",
        "Adir/",
        "zdir/",
        ".hidden_file",
        "a.txt",
        "b.txt",
    ]
    assert sandbox.runtime.list_files(f"{test_dir}/missing") == []
    # Relative paths are joined to the working directory; no path lists it.
    name = os.path.basename(test_dir)
    assert sandbox.runtime.list_files(name) == sandbox.runtime.list_files(test_dir)
    assert f"{name}/" in sandbox.runtime.list_files()


def test_copy_from_returns_zip_with_relative_names(
    sandbox: Sandbox, test_dir: str, tmp_path: Path
) -> None:
    sandbox.sh(
        f"mkdir -p {test_dir}/sub && echo A > {test_dir}/a.txt && echo B > {test_dir}/sub/b.txt"
    )
    archive_path = sandbox.runtime.copy_from(test_dir)
    try:
        with zipfile.ZipFile(archive_path) as archive:
            assert sorted(archive.namelist()) == ["a.txt", "sub/b.txt"]
            assert archive.read("sub/b.txt") == b"B\n"
    finally:
        archive_path.unlink()
