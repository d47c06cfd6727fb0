"""openhands.cli.vscode_extension: the one-time editor extension install (cli.md §14.1).

The editor CLI is a stand-in ``code``/``surf`` script on PATH that logs its arguments; GitHub is
either a closed local port (offline) or a small local HTTP server. Nothing touches the network.
"""

from __future__ import annotations

import json
import socket
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from openhands.cli import vscode_extension
from openhands.cli.vscode_extension import (
    EXTENSION_ID,
    attempt_vscode_extension_install,
    detect_editor,
    download_latest_vsix_from_github,
)

VSIX_BYTES = b"PK\x03\x04 pretend vsix"
FAILED_LINE = (
    "INFO: Automatic installation failed. Please check the OpenHands documentation for manual "
    "installation instructions."
)

FAKE_EDITOR = """#!/bin/sh
echo "$*" >> "$EDITOR_LOG"
case "$1" in
  --list-extensions) printf '%s\\n' $EDITOR_LISTED; exit "${EDITOR_LIST_EXIT:-0}" ;;
  --install-extension)
    [ "$2" = "$EDITOR_REJECT" ] && exit 1
    cp "$2" "$EDITOR_COPY"; exit "${EDITOR_INSTALL_EXIT:-0}" ;;
esac
"""


def _closed_port_url() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/releases"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # Only our bin folder plus the basics the fake editor script needs; no real `code`.
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    for name in ("TERM_PROGRAM", "__CFBundleIdentifier"):
        monkeypatch.delenv(name, raising=False)
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    # urllib builds its default opener (with the proxy settings of that moment) once; start
    # fresh so the variables above are what counts.
    monkeypatch.setattr(urllib.request, "_opener", None)
    # GitHub is "offline" unless a test serves releases itself.
    monkeypatch.setattr(vscode_extension, "GITHUB_RELEASES_API", _closed_port_url())
    return home


@pytest.fixture
def editor_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    log = tmp_path / "editor.log"
    monkeypatch.setenv("EDITOR_LOG", str(log))
    monkeypatch.setenv("EDITOR_COPY", str(tmp_path / "installed.vsix"))
    monkeypatch.setenv("EDITOR_LISTED", "ms-python.python")
    return log


def _install_fake_editor(tmp_path: Path, name: str = "code") -> None:
    script = tmp_path / "bin" / name
    script.write_text(FAKE_EDITOR)
    script.chmod(0o755)


def _bundled(folder: Path) -> Path:
    """Where a test puts (or leaves out) the package's bundled ``.vsix``."""
    return folder / vscode_extension.BUNDLED_VSIX_NAME


def _calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


class _Releases:
    """A local stand-in for GitHub: ``/releases`` JSON and the asset downloads."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, bytes]] = {}
        self.requests: list[str] = []
        handler = self._handler()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        # A short poll interval keeps shutdown() (at teardown) quick.
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        routes = self.routes
        requests = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                requests.append(self.path)
                status, body = routes.get(self.path, (404, b"not found"))
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler

    def set_releases(self, releases: list[dict[str, object]]) -> None:
        self.routes["/releases"] = (200, json.dumps(releases).encode())

    def asset(self, path: str, body: bytes = VSIX_BYTES) -> str:
        self.routes[path] = (200, body)
        return f"{self.base}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def github(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[_Releases]:
    releases = _Releases()
    monkeypatch.setattr(vscode_extension, "GITHUB_RELEASES_API", f"{releases.base}/releases")
    yield releases
    releases.close()


# --- detection -------------------------------------------------------------------------------


def test_detect_editor(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert detect_editor() is None
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    editor = detect_editor()
    assert editor is not None
    assert (editor.name, editor.command) == ("VS Code", "code")
    monkeypatch.setenv("__CFBundleIdentifier", "com.exafunction.windsurf")
    editor = detect_editor()
    assert editor is not None
    assert (editor.name, editor.command) == ("Windsurf", "surf")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PATH", "/usr/bin:/Applications/Windsurf.app/Contents/Resources/app/bin"),
        ("WINDSURF_CONFIG", "/home/me/.windsurf/config"),
        ("__CFBundleIdentifier", "com.exafunction.windsurf"),
    ],
)
def test_windsurf_traces_win_over_term_program(
    home: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    # Windsurf's terminal says TERM_PROGRAM=vscode too; its traces in the environment decide.
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    monkeypatch.setenv(name, value)
    assert detect_editor() == vscode_extension.WINDSURF


def test_other_terminals_are_not_editors(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM_PROGRAM", "iTerm.app")
    assert detect_editor() is None


def test_outside_an_editor_nothing_happens(
    home: Path, tmp_path: Path, editor_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _install_fake_editor(tmp_path)
    attempt_vscode_extension_install()
    assert _calls(editor_log) == []
    assert capsys.readouterr().out == ""
    assert list(home.iterdir()) == []


# --- install paths ---------------------------------------------------------------------------


def test_marker_means_skip(
    home: Path, tmp_path: Path, editor_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    _install_fake_editor(tmp_path)
    (home / ".openhands").mkdir()
    (home / ".openhands" / ".vscode_extension_installed").touch()

    attempt_vscode_extension_install()

    assert _calls(editor_log) == []


def test_already_installed_is_recorded(
    home: Path,
    tmp_path: Path,
    editor_log: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    monkeypatch.setenv("EDITOR_LISTED", f"ms-python.python {EXTENSION_ID}")
    _install_fake_editor(tmp_path)

    attempt_vscode_extension_install()

    assert "INFO: OpenHands VS Code extension is already installed." in capsys.readouterr().out
    assert (home / ".openhands" / ".vscode_extension_installed").is_file()
    assert _calls(editor_log) == ["--list-extensions"]


def test_no_editor_cli_fails_gracefully_without_downloading(
    home: Path,
    github: _Releases,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    monkeypatch.setattr(vscode_extension, "_bundled_vsix", lambda: _bundled(home))

    attempt_vscode_extension_install()  # must not raise

    assert capsys.readouterr().out.splitlines() == [
        "INFO: First-time setup: attempting to install the OpenHands VS Code extension...",
        "INFO: To complete VS Code integration, please ensure the 'code' command-line tool is "
        "in your PATH.",
        FAILED_LINE,
        "INFO: Will retry installation next time you run OpenHands in VS Code.",
    ]
    assert not (home / ".openhands" / ".vscode_extension_installed").exists()
    # Without an editor CLI there is nothing to install with, so GitHub is not asked.
    assert github.requests == []


def test_offline_without_bundle_fails_gracefully(
    home: Path,
    tmp_path: Path,
    editor_log: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    _install_fake_editor(tmp_path)

    attempt_vscode_extension_install()  # must not raise

    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == [
        FAILED_LINE,
        "INFO: Will retry installation next time you run OpenHands in VS Code.",
    ]
    assert _calls(editor_log) == ["--list-extensions"]
    assert not (home / ".openhands" / ".vscode_extension_installed").exists()


def test_install_from_bundled_vsix(
    home: Path,
    tmp_path: Path,
    editor_log: Path,
    github: _Releases,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    # A failing listing is no reason to give up: installing may still work.
    monkeypatch.setenv("EDITOR_LIST_EXIT", "1")
    _install_fake_editor(tmp_path)
    bundled = _bundled(tmp_path)
    bundled.write_bytes(VSIX_BYTES)
    monkeypatch.setattr(vscode_extension, "_bundled_vsix", lambda: bundled)

    attempt_vscode_extension_install()

    assert "INFO: Bundled VS Code extension installed successfully." in capsys.readouterr().out
    assert _calls(editor_log) == [
        "--list-extensions",
        f"--install-extension {bundled} --force",
    ]
    assert (home / ".openhands" / ".vscode_extension_installed").is_file()
    assert github.requests == []


def test_failed_bundled_install_falls_back_to_github(
    home: Path,
    tmp_path: Path,
    editor_log: Path,
    github: _Releases,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    _install_fake_editor(tmp_path)
    bundled = _bundled(tmp_path)
    bundled.write_bytes(b"corrupt")
    monkeypatch.setattr(vscode_extension, "_bundled_vsix", lambda: bundled)
    # The stand-in editor refuses the bundled file (by its path) and accepts the download.
    monkeypatch.setenv("EDITOR_REJECT", str(bundled))
    github.set_releases(
        [
            {
                "tag_name": "ext-v1",
                "assets": [{"name": "a.vsix", "browser_download_url": github.asset("/a")}],
            }
        ]
    )

    attempt_vscode_extension_install()

    out = capsys.readouterr().out
    assert "Bundled" not in out
    assert "INFO: OpenHands VS Code extension installed successfully from GitHub." in out
    assert len(_calls(editor_log)) == 3
    assert (tmp_path / "installed.vsix").read_bytes() == VSIX_BYTES
    assert (home / ".openhands" / ".vscode_extension_installed").is_file()


def test_unwritable_marker_is_not_fatal(
    home: Path,
    tmp_path: Path,
    editor_log: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    monkeypatch.setenv("EDITOR_LISTED", EXTENSION_ID)
    _install_fake_editor(tmp_path)
    marker = home / ".openhands" / ".vscode_extension_installed"
    marker.parent.mkdir()
    # A dangling link into a missing folder: exists() is false and touch() fails.
    marker.symlink_to(tmp_path / "missing" / "marker")

    attempt_vscode_extension_install()

    assert "already installed" in capsys.readouterr().out


def test_install_from_github(
    home: Path,
    tmp_path: Path,
    editor_log: Path,
    github: _Releases,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    _install_fake_editor(tmp_path)
    github.set_releases(
        [
            {"tag_name": "0.59.0", "assets": [{"name": "app.vsix", "browser_download_url": "x"}]},
            {
                "tag_name": "ext-v0.0.3",
                "assets": [
                    {"name": "notes.txt", "browser_download_url": github.asset("/notes")},
                    {"name": "openhands-0.0.3.vsix", "browser_download_url": github.asset("/v3")},
                ],
            },
            {
                "tag_name": "ext-v0.0.2",
                "assets": [{"name": "old.vsix", "browser_download_url": github.asset("/v2")}],
            },
        ]
    )

    attempt_vscode_extension_install()

    out = capsys.readouterr().out
    assert "First-time setup" in out
    assert "INFO: OpenHands VS Code extension installed successfully from GitHub." in out
    assert (home / ".openhands" / ".vscode_extension_installed").is_file()
    calls = _calls(editor_log)
    assert calls[0] == "--list-extensions"
    installed_from = calls[1].split()[1]
    assert calls[1].startswith("--install-extension ")
    assert (tmp_path / "installed.vsix").read_bytes() == VSIX_BYTES
    # The downloaded temporary file is cleaned up.
    assert not Path(installed_from).exists()


def test_failed_install_leaves_no_marker(
    home: Path,
    tmp_path: Path,
    editor_log: Path,
    github: _Releases,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    monkeypatch.setenv("EDITOR_INSTALL_EXIT", "1")
    _install_fake_editor(tmp_path)
    github.set_releases(
        [
            {
                "tag_name": "ext-v1",
                "assets": [{"name": "a.vsix", "browser_download_url": github.asset("/a")}],
            }
        ]
    )

    attempt_vscode_extension_install()

    assert FAILED_LINE in capsys.readouterr().out
    assert not (home / ".openhands" / ".vscode_extension_installed").exists()
    assert len(_calls(editor_log)) == 2


def test_windsurf_uses_surf_and_its_own_marker(
    home: Path,
    tmp_path: Path,
    editor_log: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TERM_PROGRAM", "windsurf")
    monkeypatch.setenv("EDITOR_LISTED", EXTENSION_ID)
    _install_fake_editor(tmp_path, "surf")

    attempt_vscode_extension_install()

    assert "OpenHands Windsurf extension is already installed." in capsys.readouterr().out
    assert (home / ".openhands" / ".windsurf_extension_installed").is_file()
    assert not (home / ".openhands" / ".vscode_extension_installed").exists()


def test_unusable_home_is_not_fatal(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERM_PROGRAM", "vscode")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("HOME", str(blocker))
    attempt_vscode_extension_install()  # must not raise


# --- download --------------------------------------------------------------------------------


def test_download_offline_returns_none(home: Path) -> None:
    assert download_latest_vsix_from_github() is None


def test_download_picks_first_extension_release(github: _Releases) -> None:
    github.set_releases(
        [
            {"tag_name": "1.0.0", "assets": []},
            {
                "tag_name": "ext-v2",
                "assets": [{"name": "new.vsix", "browser_download_url": github.asset("/new")}],
            },
            {
                "tag_name": "ext-v1",
                "assets": [
                    {"name": "old.vsix", "browser_download_url": github.asset("/old", b"old")}
                ],
            },
        ]
    )
    path = download_latest_vsix_from_github()
    assert path is not None
    try:
        assert path.endswith(".vsix")
        assert Path(path).read_bytes() == VSIX_BYTES
    finally:
        Path(path).unlink()


@pytest.mark.parametrize(
    "route",
    [
        None,  # /releases answers 404
        (200, b"not json"),
        (200, b'{"message": "rate limited"}'),
        (200, json.dumps([{"tag_name": "1.0", "assets": []}]).encode()),
        (200, json.dumps([{"tag_name": "ext-v1", "assets": [{"name": "a.zip"}]}]).encode()),
        (200, json.dumps(["junk", {"tag_name": "ext-v1", "assets": None}]).encode()),
    ],
)
def test_download_unusable_answers_return_none(
    github: _Releases, route: tuple[int, bytes] | None
) -> None:
    if route is not None:
        github.routes["/releases"] = route
    assert download_latest_vsix_from_github() is None


def test_download_missing_asset_returns_none(github: _Releases) -> None:
    github.set_releases(
        [
            {
                "tag_name": "ext-v1",
                "assets": [{"name": "a.vsix", "browser_download_url": f"{github.base}/gone"}],
            }
        ]
    )
    assert download_latest_vsix_from_github() is None
