"""Start code-server for the sandbox (runtime.md §9, built from the npm registry, §15).

code-server has no URL connection token: it runs with password auth, the password being the
per-sandbox token, stored as its SHA-256 so that the session cookie is that hash. The UI
logs in by posting the token (see the VS Code tab). Telemetry, update checks and the
extension gallery are off, so the browser never needs anything from outside.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import pwd
import shlex
import signal
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

from openhands.core.logger import openhands_logger as logger
from openhands.runtime.plugins.base import Plugin
from openhands.runtime.utils.bash import su_target

NODE_DIR = Path("/openhands/node")
CODE_SERVER_ENTRY = NODE_DIR / "lib/node_modules/code-server/out/node/entry.js"
READY_TIMEOUT = 60.0
# code-server boots in ~1 s and the sandbox is not ready before it answers: a short step
# keeps the wait close to the boot itself (each step adds half of itself on average).
READY_POLL_SECONDS = 0.05
WORKSPACE_SETTINGS = {
    "workbench.colorTheme": "Default Dark Modern",
    "workbench.startupEditor": "none",
}
# User settings that keep the workbench from calling out (telemetry, updates, gallery, tips).
PRIVATE_SETTINGS = {
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "extensions.ignoreRecommendations": True,
    "workbench.enableExperiments": False,
    "workbench.settings.enableNaturalLanguageSearch": False,
    "workbench.tips.enabled": False,
    "npm.fetchOnlinePackageInfo": False,
    "chat.disableAIFeatures": True,
}


@dataclass(frozen=True)
class CodeServerLaunch:
    port: int
    token: str
    username: str | None  # su to this user; None: run as the server's own user
    workspace: str
    data_dir: Path

    @property
    def hashed_token(self) -> str:
        return hashlib.sha256(self.token.encode()).hexdigest()

    def config_yaml(self) -> str:
        # JSON is YAML: every value is quoted safely.
        return (
            "\n".join(
                f"{key}: {json.dumps(value)}"
                for key, value in {
                    "bind-addr": f"0.0.0.0:{self.port}",
                    "auth": "password",
                    "hashed-password": self.hashed_token,
                    "cert": False,
                    "disable-telemetry": True,
                    "disable-update-check": True,
                    "disable-workspace-trust": True,
                    "disable-getting-started-override": True,
                    "user-data-dir": str(self.data_dir),
                    "extensions-dir": str(self.data_dir / "extensions"),
                    # Several sandboxes on one host share the cookie jar of "localhost".
                    "cookie-suffix": str(self.port),
                }.items()
            )
            + "\n"
        )

    def command(self) -> list[str]:
        code_server = [
            str(NODE_DIR / "bin/node"),
            str(CODE_SERVER_ENTRY),
            "--config",
            str(self.data_dir / "config.yaml"),
            "--ignore-last-opened",
            self.workspace,
        ]
        # An empty gallery definition: no marketplace requests from the server or the browser.
        script = (
            f"cd {shlex.quote(self.workspace)} && export PATH={NODE_DIR}/bin:$PATH "
            f"EXTENSIONS_GALLERY='{{}}' && exec {shlex.join(code_server)}"
        )
        if self.username is None:
            return ["/bin/bash", "-c", script]
        return ["su", "-", self.username, "-s", "/bin/bash", "-c", script]


def plan_launch(username: str, env: dict[str, str], token: str) -> CodeServerLaunch | None:
    """How to start code-server here, or None (with the reason logged) when VS Code is off."""
    if not CODE_SERVER_ENTRY.is_file():
        logger.warning("VSCode disabled: code-server is not in this image (enable_vscode)")
        return None
    allowed = {"root", "openhands", env.get("RUNTIME_USERNAME")}
    if username not in allowed:
        logger.warning("VSCode disabled: user %s may not run it", username)
        return None
    try:
        port = int(env.get("VSCODE_PORT", ""))
    except ValueError:
        logger.warning("VSCode disabled: VSCODE_PORT is missing or not a number")
        return None
    user = su_target(username) if os.getuid() == 0 else None
    home = Path(pwd.getpwnam(user).pw_dir if user else os.path.expanduser("~"))
    return CodeServerLaunch(
        port=port,
        token=token,
        username=user,
        workspace=env.get("WORKSPACE_MOUNT_PATH_IN_SANDBOX", "/workspace"),
        data_dir=home / ".local/share/code-server",
    )


class VSCodePlugin(Plugin):
    name = "vscode"

    def __init__(self) -> None:
        self.token: str | None = None
        self._process: subprocess.Popen[bytes] | None = None

    async def initialize(self, username: str, work_dir: str) -> None:
        launch = plan_launch(username, dict(os.environ), uuid.uuid4().hex)
        if launch is None:
            return
        await asyncio.to_thread(self._start, launch)
        self.token = launch.token

    def _start(self, launch: CodeServerLaunch) -> None:
        _write_settings(launch)
        self._process = subprocess.Popen(
            launch.command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"code-server exited with {self._process.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{launch.port}/healthz", timeout=2):
                    return
            except (urllib.error.URLError, OSError):
                time.sleep(READY_POLL_SECONDS)
        raise RuntimeError(f"code-server did not answer on port {launch.port}")

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(process.pid, signal.SIGKILL)


def _write_settings(launch: CodeServerLaunch) -> None:
    """Workspace look (§9), private user settings and the config with the hashed token."""
    workspace_settings = Path(os.environ.get("WORKSPACE_BASE") or "/workspace") / ".vscode"
    workspace_settings.mkdir(parents=True, exist_ok=True)
    settings_file = workspace_settings / "settings.json"
    settings_file.write_text(json.dumps(WORKSPACE_SETTINGS, indent=2) + "\n")
    os.chmod(settings_file, 0o666)

    user_settings = launch.data_dir / "User/settings.json"
    user_settings.parent.mkdir(parents=True, exist_ok=True)
    user_settings.write_text(json.dumps(PRIVATE_SETTINGS, indent=2) + "\n")
    config = launch.data_dir / "config.yaml"
    config.write_text(launch.config_yaml())
    config.chmod(0o600)
    if launch.username is not None and os.getuid() == 0:
        entry = pwd.getpwnam(launch.username)
        for root, dirs, files in os.walk(launch.data_dir.parents[1]):
            for name in [*dirs, *files, "."]:
                os.chown(os.path.join(root, name), entry.pw_uid, entry.pw_gid)
