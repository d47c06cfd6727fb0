"""VS Code in the sandbox (code-server from the npm registry), opened from the UI's VS Code
tab of a running conversation. This module runs its own server with ``enable_vscode``."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Request, expect

from tests.e2e.conftest import (
    SANDBOX_START_S,
    BrowserPage,
    E2EServer,
    LLMRouter,
    running_server,
    start_from_home,
    wait_agent_state,
)
from tests.support.scripted_llm import ScriptedLLMServer, tool_call

pytestmark = pytest.mark.docker

# The first start may build the VS Code image variant (a few minutes, once per recipe).
VSCODE_BUILD_S = 900.0
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}


@pytest.fixture(scope="module")
def e2e_server(
    frontend_build: Path, scripted_llm: ScriptedLLMServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[E2EServer]:
    """Overrides the suite's server: this one builds sandboxes with VS Code (the rest of
    the suite runs with SANDBOX_ENABLE_VSCODE=false, tests/conftest.py). VS Code's image
    variant builds in the background while conversations start without it: the server is
    handed over once the variant is ready, so the conversation below has VS Code."""
    home = tmp_path_factory.mktemp("e2e-vscode-server")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SANDBOX_ENABLE_VSCODE", "true")
        with running_server(
            home, frontend_build, scripted_llm.base_url, "enable_vscode = true\n"
        ) as server:
            _wait_vscode_image(server)
            yield server


def _wait_vscode_image(server: E2EServer) -> None:
    deadline = time.monotonic() + VSCODE_BUILD_S
    status: dict[str, object] = {}
    while time.monotonic() < deadline:
        response = server.api.get("/api/options/vscode-image")
        assert response.status_code == 200, response.text
        status = response.json()
        assert status["enabled"] is True and status["state"] != "failed", status
        if status["state"] == "ready":
            return
        time.sleep(1)  # polling the build's status, not synchronising
    raise AssertionError(f"the VS Code image was not built in time: {status}")


def test_vscode_tab_shows_the_file_the_agent_created(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    command = "echo 'print(42)' > /workspace/made_by_agent.py"
    tag = llm_router.script(
        "vscode",
        [
            tool_call("execute_bash", {"command": command, "security_risk": "LOW"}),
            tool_call("finish", {"message": "made_by_agent.py is there."}),
        ],
    )
    outside: list[str] = []

    def on_request(request: Request) -> None:
        host = urlsplit(request.url).hostname or ""
        if request.url.startswith(("http", "ws")) and host not in LOCAL_HOSTS:
            outside.append(request.url)

    ui.page.on("request", on_request)
    started = time.monotonic()
    conversation_id = start_from_home(ui, f"{tag} Create made_by_agent.py in the workspace.")
    wait_agent_state(ui, "finished", timeout=VSCODE_BUILD_S + SANDBOX_START_S)
    print(f"conversation ready and finished in {time.monotonic() - started:.1f} s")

    # The URL carries the token; without signing in, code-server serves only its login page.
    response = configured.api.get(f"/api/conversations/{conversation_id}/vscode-url")
    assert response.status_code == 200, response.text
    vscode_url = response.json()["vscode_url"]
    assert re.fullmatch(r"http://localhost:\d+/\?tkn=[0-9a-f]{32}&folder=/workspace", vscode_url)
    origin = vscode_url.split("/?", 1)[0]
    anonymous = httpx.get(f"{origin}/?folder=/workspace", follow_redirects=True, timeout=10)
    assert "/login" in str(anonymous.url) and 'name="password"' in anonymous.text

    ui.page.get_by_test_id("tab-vscode").click()
    frame = ui.page.frame_locator('[data-testid="vscode-frame"]')
    explorer = frame.locator(".explorer-folders-view")
    expect(explorer).to_be_visible(timeout=60_000)
    expect(explorer.locator(".monaco-list-row", has_text="made_by_agent.py")).to_be_visible(
        timeout=30_000
    )
    # Open the file: the editor shows what the agent wrote.
    explorer.locator(".monaco-list-row", has_text="made_by_agent.py").click()
    expect(frame.locator(".monaco-editor .view-lines").first).to_contain_text(
        "print(42)", timeout=30_000
    )
    time.sleep(3)  # late background requests (gallery, telemetry) would show up by now
    assert outside == [], f"the browser called out of the machine: {outside[:10]}"
