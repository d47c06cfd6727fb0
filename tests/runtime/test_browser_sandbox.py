"""The sandbox browser in real runtimes (runtime.md §8, §15): a page served by
``python3 -m http.server`` started in the sandbox, browsed through the runtime and the event
stream like an agent would. DockerRuntime uses the image's Debian Chromium (the first run
builds the browser-enabled image, later runs reuse it); LocalRuntime the host's."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator

import pytest

from openhands.core.config import OpenHandsConfig
from openhands.events.action import BrowseInteractiveAction, BrowseURLAction
from openhands.events.observation import (
    BrowserOutputObservation,
    CmdOutputObservation,
    FileDownloadObservation,
)
from tests.runtime.conformance import RUNTIME_KINDS, Sandbox, open_sandbox

pytestmark = [pytest.mark.timeout(600)]

PAGE = """<html><head><title>Sandbox page</title></head><body>
<h1>Served inside the sandbox</h1>
<button onclick="this.textContent = 'Clicked'">Press me</button>
</body></html>"""


def _with_browser(config: OpenHandsConfig) -> None:
    config.enable_browser = True


@pytest.fixture(scope="module", params=RUNTIME_KINDS)
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    with open_sandbox(request.param, configure=_with_browser, plugins=[]) as sandbox:
        yield sandbox


def free_port() -> int:
    """Free here; in a container the whole port range is free anyway."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_downloads_folder_exists_before_any_browsing(sandbox: Sandbox) -> None:
    obs = sandbox.sh(f"test -d {sandbox.workspace}/.downloads && echo present")
    assert obs.content.strip() == "present", obs.content


def test_browse_a_page_served_inside_the_sandbox(sandbox: Sandbox) -> None:
    site = f"{sandbox.workspace}/site"
    port = free_port()
    sandbox.sh(f"mkdir -p {site} && cat > {site}/index.html <<'EOF'\n{PAGE}\nEOF")
    started = sandbox.run(
        f"cd {site} && nohup python3 -m http.server {port} > {site}/http.log 2>&1 & "
        f"echo $! > {site}/http.pid"
    )
    assert isinstance(started, CmdOutputObservation) and started.exit_code == 0
    try:
        _browse_and_click(sandbox, port)
    finally:
        sandbox.run(f"kill $(cat {site}/http.pid)")


def _browse_and_click(sandbox: Sandbox, port: int) -> None:
    # In a child shell: `exit` in the sandbox's own shell would end that shell.
    sandbox.sh(
        f"bash -c 'for i in $(seq 100); do curl -sf http://localhost:{port}/ >/dev/null "
        "&& exit 0; sleep 0.1; done; exit 1'"
    )

    url = f"http://localhost:{port}/"
    obs = sandbox.via_stream(BrowseURLAction(url), wait=180)
    assert isinstance(obs, BrowserOutputObservation), obs
    assert obs.error is False, obs.content
    assert obs.url == url
    assert obs.last_browser_action == f'goto("{url}")'
    assert obs.content.startswith(f"[Current URL: {url}]\n")
    assert "# Served inside the sandbox" in obs.content
    assert obs.screenshot.startswith("data:image/png;base64,")
    assert obs.screenshot_path is not None
    assert obs.screenshot_path.startswith(f"{sandbox.workspace}/.browser_screenshots/")
    assert sandbox.sh(f"test -s {obs.screenshot_path} && echo saved").content.strip() == "saved"

    obs = sandbox.via_stream(BrowseInteractiveAction("noop(0)"))
    assert isinstance(obs, BrowserOutputObservation)
    found = re.search(r"\[(\w+)\] button 'Press me', clickable", obs.content)
    assert found, obs.content
    obs = sandbox.via_stream(BrowseInteractiveAction(f"click('{found.group(1)}')"))
    assert isinstance(obs, BrowserOutputObservation)
    assert obs.error is False, obs.content
    assert f"[{found.group(1)}] button 'Clicked'" in obs.content


def test_opening_a_pdf_served_inside_the_sandbox_downloads_it(sandbox: Sandbox) -> None:
    site = f"{sandbox.workspace}/pdfsite"
    port = free_port()
    sandbox.sh(f"mkdir -p {site} && printf '%%PDF-1.4\\n%% from the sandbox\\n' > {site}/doc.pdf")
    started = sandbox.run(
        f"cd {site} && nohup python3 -m http.server {port} > {site}/http.log 2>&1 & "
        f"echo $! > {site}/http.pid"
    )
    assert isinstance(started, CmdOutputObservation) and started.exit_code == 0
    try:
        sandbox.sh(
            f"bash -c 'for i in $(seq 100); do curl -sf http://localhost:{port}/doc.pdf "
            ">/dev/null && exit 0; sleep 0.1; done; exit 1'"
        )
        url = f"http://localhost:{port}/doc.pdf"
        obs = sandbox.via_stream(BrowseURLAction(url), wait=180)
        assert isinstance(obs, FileDownloadObservation), obs
        assert re.fullmatch(rf"{sandbox.workspace}/file_\d+\.pdf", obs.file_path), obs.file_path
        assert f'Execution of the previous action goto("{url}") resulted in a file download.' in (
            obs.content
        )
        saved = sandbox.sh(f"head -c 8 {obs.file_path}").content
        assert saved.startswith("%PDF-1.4"), saved
    finally:
        sandbox.run(f"kill $(cat {site}/http.pid)")
