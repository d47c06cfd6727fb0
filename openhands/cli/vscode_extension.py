"""One-time install of the OpenHands editor extension (cli.md §14.1).

When the terminal app runs inside VS Code or Windsurf, it tries to install the
``openhands.openhands-vscode`` extension with the editor's own command-line tool (``code`` or
``surf``): from a ``.vsix`` bundled in the package if there is one, else from the newest one on
the project's GitHub releases. A marker file in ``~/.openhands`` records success so the attempt
is not repeated; after a failure there is no marker, so the next start tries again. Everything
here is best effort: no failure may stop the app from starting.

The printed ``INFO:`` lines and the arguments given to the editor are the ones the reference
prints and passes, so that users (and scripts reading the output) see the same thing.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import subprocess
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable

from openhands.core.logger import openhands_logger as logger

EXTENSION_ID = "openhands.openhands-vscode"
BUNDLED_VSIX_NAME = "openhands-vscode-0.0.1.vsix"
GITHUB_RELEASES_API = "https://api.github.com/repos/All-Hands-AI/OpenHands/releases"
# Extension releases are tagged apart from the app's own releases.
EXTENSION_TAG_PREFIX = "ext-v"
API_TIMEOUT_SECONDS = 10.0
DOWNLOAD_TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True)
class Editor:
    """A VS Code flavour: its display name, its CLI and its marker file."""

    name: str
    command: str
    marker_name: str

    def marker_path(self) -> pathlib.Path:
        # Looked up on each call (not at import) so a changed HOME is honoured.
        return pathlib.Path.home() / ".openhands" / self.marker_name


VSCODE = Editor("VS Code", "code", ".vscode_extension_installed")
WINDSURF = Editor("Windsurf", "surf", ".windsurf_extension_installed")

# macOS sets this (mixed-case) variable for apps started from their bundle.
_BUNDLE_ID_VAR = "__CFBundleIdentifier"
_WINDSURF_BUNDLE_ID = "com.exafunction.windsurf"


def _in_windsurf() -> bool:
    # Windsurf's terminal reports TERM_PROGRAM=vscode like VS Code's, so only its own traces in
    # the environment (bundle id, its bin folder on PATH, its config paths) tell them apart.
    if os.environ.get(_BUNDLE_ID_VAR, "") == _WINDSURF_BUNDLE_ID:
        return True
    return any("windsurf" in value.lower() for value in os.environ.values())


def detect_editor() -> Editor | None:
    """The editor whose integrated terminal we run in, or ``None`` outside one."""
    if _in_windsurf():
        return WINDSURF
    if os.environ.get("TERM_PROGRAM") == "vscode":
        return VSCODE
    return None


class _EditorMissingError(Exception):
    """The editor's command-line tool is not installed (or not on PATH)."""


def _run_editor(editor: Editor, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([editor.command, *args], capture_output=True, text=True, check=False)
    except FileNotFoundError as error:
        raise _EditorMissingError(editor.command) from error


def _is_extension_installed(editor: Editor) -> bool:
    """Whether the editor lists the extension; raises ``_EditorMissingError``.

    Any other trouble asking counts as "no": installing may still work.
    """
    try:
        result = _run_editor(editor, "--list-extensions")
    except (OSError, subprocess.SubprocessError) as error:
        logger.debug(f"Could not check installed extensions: {error}")
        return False
    if result.returncode != 0:
        return False
    # Exact ids only: a fork named like ours must not count.
    return EXTENSION_ID in {line.strip() for line in result.stdout.splitlines()}


def _install_vsix(editor: Editor, vsix_path: str) -> bool:
    """``<editor> --install-extension <file> --force``; raises ``_EditorMissingError``."""
    try:
        result = _run_editor(editor, "--install-extension", vsix_path, "--force")
    except (OSError, subprocess.SubprocessError) as error:
        logger.debug(f"{editor.command} --install-extension could not run: {error}")
        return False
    if result.returncode != 0:
        logger.debug(f"Installing {vsix_path} failed: {result.stderr.strip()}")
    return result.returncode == 0


def _bundled_vsix() -> Traversable:
    """Where a package build puts the extension (absent in a source checkout)."""
    return resources.files("openhands").joinpath("integrations", "vscode", BUNDLED_VSIX_NAME)


def _attempt_bundled_install(editor: Editor) -> bool:
    """Install the ``.vsix`` shipped inside the package, if the package has one."""
    try:
        with resources.as_file(_bundled_vsix()) as vsix_path:
            if not vsix_path.exists():
                logger.debug(f"No bundled extension at {vsix_path}")
                return False
            installed = _install_vsix(editor, str(vsix_path))
    except (FileNotFoundError, NotADirectoryError) as error:
        # The package has no integrations/vscode folder at all.
        logger.debug(f"No bundled extension: {error}")
        return False
    if installed:
        print(f"INFO: Bundled {editor.name} extension installed successfully.")
    return installed


def _fetch_json(url: str) -> object:
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.github+json"})
    with urllib.request.urlopen(request, timeout=API_TIMEOUT_SECONDS) as response:
        return json.loads(response.read().decode("utf-8"))


def _latest_vsix_url(releases: object) -> str | None:
    """The first ``.vsix`` asset of the newest extension release that has one.

    GitHub lists releases newest first.
    """
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
        logger.debug(f"Could not download the extension from GitHub: {error}")
        return None
    with tempfile.NamedTemporaryFile(delete=False, suffix=".vsix") as file:
        file.write(content)
        return file.name


def _attempt_github_install(editor: Editor) -> bool:
    vsix_path = download_latest_vsix_from_github()
    if vsix_path is None:
        return False
    try:
        installed = _install_vsix(editor, vsix_path)
    finally:
        with contextlib.suppress(OSError):
            os.remove(vsix_path)
    if installed:
        print(f"INFO: OpenHands {editor.name} extension installed successfully from GitHub.")
    return installed


def _mark_installed(editor: Editor) -> None:
    try:
        editor.marker_path().touch()
    except OSError as error:
        # Only costs a repeated `--list-extensions` at the next start.
        logger.debug(f"Could not create {editor.name} extension success flag file: {error}")


def _report_failure(editor: Editor) -> None:
    print(
        "INFO: Automatic installation failed. Please check the OpenHands documentation for "
        "manual installation instructions."
    )
    print(f"INFO: Will retry installation next time you run OpenHands in {editor.name}.")


def _install(editor: Editor) -> None:
    editor_missing = False
    try:
        if _is_extension_installed(editor):
            print(f"INFO: OpenHands {editor.name} extension is already installed.")
            _mark_installed(editor)
            return
    except _EditorMissingError:
        # Still try the bundled file below: it is local, so trying costs next to nothing.
        editor_missing = True

    print(f"INFO: First-time setup: attempting to install the OpenHands {editor.name} extension...")
    installed = False
    try:
        installed = _attempt_bundled_install(editor)
        # Without the editor's command-line tool nothing can be installed, so downloading the
        # extension would only cost time.
        if not installed and not editor_missing:
            installed = _attempt_github_install(editor)
    except _EditorMissingError:
        editor_missing = True
    if installed:
        _mark_installed(editor)
        return
    if editor_missing:
        print(
            f"INFO: To complete {editor.name} integration, please ensure the "
            f"'{editor.command}' command-line tool is in your PATH."
        )
    _report_failure(editor)


def attempt_vscode_extension_install() -> None:
    """Install the extension once, when running inside VS Code or Windsurf. Never raises."""
    editor = detect_editor()
    if editor is None:
        return
    marker = editor.marker_path()
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        if marker.exists():
            return
    except OSError as error:
        # Without a usable marker we would retry (and print) on every start; stay quiet.
        logger.debug(f"Could not create or check {editor.name} extension flag directory: {error}")
        return
    try:
        _install(editor)
    except Exception as error:
        # A broken extension install must never keep the app from starting.
        logger.debug(f"Editor extension install failed: {error}", exc_info=True)
