"""One-time install of the OpenHands editor extension (cli.md §14.1).

When the terminal app runs inside VS Code or Windsurf, it tries once to install the
``openhands.openhands-vscode`` extension with the editor's own command-line tool (``code`` or
``surf``): from a ``.vsix`` bundled in the package if there is one, else from the newest one on
the project's GitHub releases. A marker file in ``~/.openhands`` records success so the attempt
is not repeated. Everything here is best effort: no failure may stop the app from starting.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from openhands.core.logger import openhands_logger as logger

EXTENSION_ID = "openhands.openhands-vscode"
BUNDLED_VSIX_NAME = "openhands-vscode-0.0.1.vsix"
GITHUB_RELEASES_API = "https://api.github.com/repos/All-Hands-AI/OpenHands/releases"
# Extension releases are tagged apart from the app's own releases.
EXTENSION_TAG_PREFIX = "ext-v"
API_TIMEOUT_SECONDS = 10.0
DOWNLOAD_TIMEOUT_SECONDS = 30.0
EDITOR_TIMEOUT_SECONDS = 60.0


@dataclass(frozen=True)
class Editor:
    """A VS Code flavour: its display name, its CLI and its marker file."""

    name: str
    command: str
    marker_name: str

    def marker_path(self) -> Path:
        return Path.home() / ".openhands" / self.marker_name


VSCODE = Editor("VS Code", "code", ".vscode_extension_installed")
WINDSURF = Editor("Windsurf", "surf", ".windsurf_extension_installed")


# macOS sets this (mixed-case) variable for apps started from their bundle.
_BUNDLE_ID_VAR = "__CFBundleIdentifier"
_WINDSURF_BUNDLE_ID = "com.exafunction.windsurf"


def _in_windsurf() -> bool:
    # Windsurf's terminal reports TERM_PROGRAM=vscode too, so its own traces decide.
    return (
        os.environ.get("TERM_PROGRAM", "").lower() == "windsurf"
        or os.environ.get(_BUNDLE_ID_VAR, "") == _WINDSURF_BUNDLE_ID
        or "windsurf" in os.environ.get("PATH", "").lower()
    )


def detect_editor() -> Editor | None:
    """The editor whose integrated terminal we run in, or ``None`` outside one."""
    term_program = os.environ.get("TERM_PROGRAM", "").lower()
    in_editor = term_program in ("vscode", "windsurf") or (
        os.environ.get(_BUNDLE_ID_VAR, "") == _WINDSURF_BUNDLE_ID
    )
    if not in_editor:
        # A Windsurf install on PATH alone does not mean we run inside it.
        return None
    return WINDSURF if _in_windsurf() else VSCODE


class _EditorMissingError(Exception):
    """The editor's command-line tool is not installed (or not on PATH)."""


def _run_editor(editor: Editor, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [editor.command, *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=EDITOR_TIMEOUT_SECONDS,
        )
    except FileNotFoundError as error:
        raise _EditorMissingError(editor.command) from error


def _is_extension_installed(editor: Editor) -> bool:
    try:
        result = _run_editor(editor, "--list-extensions")
    except subprocess.TimeoutExpired:
        return False
    if result.returncode != 0:
        return False
    installed = {line.strip().lower() for line in result.stdout.splitlines()}
    return EXTENSION_ID in installed


def _install_vsix(editor: Editor, vsix_path: str) -> bool:
    try:
        result = _run_editor(editor, "--install-extension", vsix_path, "--force")
    except subprocess.TimeoutExpired:
        return False
    if result.returncode != 0:
        logger.debug("%s --install-extension failed: %s", editor.command, result.stderr.strip())
    return result.returncode == 0


def _attempt_bundled_install(editor: Editor) -> bool:
    """Install the ``.vsix`` shipped inside the package, if the package has one."""
    bundled = resources.files("openhands").joinpath("integrations", "vscode", BUNDLED_VSIX_NAME)
    if not bundled.is_file():
        return False
    with resources.as_file(bundled) as vsix_path:
        return _install_vsix(editor, str(vsix_path))


def _fetch_json(url: str) -> object:
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.github+json"})
    with urllib.request.urlopen(request, timeout=API_TIMEOUT_SECONDS) as response:
        return json.loads(response.read().decode("utf-8"))


def _latest_vsix_url(releases: object) -> str | None:
    """The first ``.vsix`` asset of the first extension release (GitHub lists newest first)."""
    if not isinstance(releases, list):
        return None
    for release in releases:
        if not isinstance(release, dict):
            continue
        if not str(release.get("tag_name", "")).startswith(EXTENSION_TAG_PREFIX):
            continue
        for asset in release.get("assets") or []:
            if isinstance(asset, dict) and str(asset.get("name", "")).endswith(".vsix"):
                url = asset.get("browser_download_url")
                if isinstance(url, str) and url:
                    return url
    return None


def download_latest_vsix_from_github() -> str | None:
    """Download the newest extension ``.vsix`` into a temporary file and return its path.

    ``None`` when offline, when GitHub answers with anything unexpected or when there is no
    extension release. The caller deletes the file.
    """
    try:
        url = _latest_vsix_url(_fetch_json(GITHUB_RELEASES_API))
        if url is None:
            return None
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_SECONDS) as response:
            content = response.read()
    except (urllib.error.URLError, OSError, TimeoutError, ValueError) as error:
        # URLError covers HTTP errors and no network; ValueError covers bad JSON and URLs.
        logger.debug("Could not download the extension from GitHub: %s", error)
        return None
    with tempfile.NamedTemporaryFile(delete=False, suffix=".vsix") as file:
        file.write(content)
        return file.name


def _attempt_github_install(editor: Editor) -> bool:
    vsix_path = download_latest_vsix_from_github()
    if vsix_path is None:
        return False
    try:
        return _install_vsix(editor, vsix_path)
    finally:
        with contextlib.suppress(OSError):
            os.remove(vsix_path)


def _mark_installed(editor: Editor) -> None:
    try:
        editor.marker_path().touch()
    except OSError as error:
        logger.debug("Could not write %s: %s", editor.marker_path(), error)


def _install(editor: Editor) -> None:
    if _is_extension_installed(editor):
        print(f"INFO: OpenHands {editor.name} extension is already installed.")
        _mark_installed(editor)
        return

    print(f"INFO: First-time setup: installing the OpenHands {editor.name} extension...")
    for source, attempt in (
        ("the bundled package", _attempt_bundled_install),
        ("GitHub", _attempt_github_install),
    ):
        if attempt(editor):
            print(f"INFO: OpenHands {editor.name} extension installed from {source}.")
            _mark_installed(editor)
            return
    _report_failure(editor)


def _report_failure(editor: Editor) -> None:
    print(
        f"INFO: Could not install the OpenHands {editor.name} extension automatically; "
        "see the OpenHands documentation to install it by hand."
    )
    print(
        f"INFO: The installation will be tried again the next time OpenHands runs in {editor.name}."
    )


def attempt_vscode_extension_install() -> None:
    """Install the extension once, when running inside VS Code or Windsurf. Never raises."""
    editor = detect_editor()
    if editor is None:
        return
    try:
        marker = editor.marker_path()
        marker.parent.mkdir(parents=True, exist_ok=True)
        if marker.exists():
            return
        _install(editor)
    except _EditorMissingError:
        # Without the editor's command-line tool nothing can be installed; downloading the
        # extension first would only cost time.
        _report_failure(editor)
    except Exception as error:
        # A broken extension install must never keep the app from starting.
        logger.debug("Editor extension install failed: %s", error, exc_info=True)
