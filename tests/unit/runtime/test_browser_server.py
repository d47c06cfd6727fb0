"""The sandbox browser end to end: a real action execution server (browser enabled) driving the
host's Debian Chromium, browsing pages a local ``http.server`` serves on 127.0.0.1.

One server (so one browser) serves the whole module; the first browse starts Chromium."""

from __future__ import annotations

import base64
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from openhands.events.action import BrowseInteractiveAction, BrowseURLAction
from openhands.events.observation import BrowserOutputObservation, ErrorObservation
from openhands.runtime.browser.env import find_chromium
from openhands.runtime.browser.handler import BrowserHandler
from openhands.runtime.utils.runtime_hash import PROJECT_ROOT

KEY = "browser-test-key"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

INDEX = """<!doctype html>
<html><head><title>Test Page</title></head><body>
<h1>Hello browser</h1>
<p>Some text with a <a href="/other.html">Docs link</a>.</p>
<p><img src="/logo.png" alt="logo picture"> after the image</p>
<form onsubmit="event.preventDefault();
  document.getElementById('out').textContent = 'Hi ' + document.getElementById('name').value;">
  <label for="name">Name</label> <input id="name" type="text">
  <button type="submit">Submit</button>
</form>
<div id="out"></div>
<button id="counter" onclick="this.textContent = 'Count ' + (Number(this.dataset.n = (Number(this.dataset.n || 0) + 1)))">Count 0</button>
<a href="/report.pdf">Get report</a>
<a href="/other.html" target="_blank">Open in a new tab</a>
</body></html>
"""
OTHER = "<html><head><title>Other</title></head><body><p>The other page</p></body></html>"
UPLOAD = """<!doctype html>
<html><head><title>Upload</title></head><body>
<form><input type="file" id="anon"></form>
<label for="cv">Your CV</label> <input type="file" id="cv">
<button onclick="document.getElementById('out').textContent =
  'Picked ' + document.getElementById('anon').files[0].name">Show</button>
<div id="out"></div>
</body></html>
"""


class _Handler(SimpleHTTPRequestHandler):
    def end_headers(self) -> None:
        if self.path.endswith("report.pdf"):  # an attachment: the browser downloads it
            self.send_header("Content-Disposition", 'attachment; filename="report.pdf"')
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("site")
    (root / "index.html").write_text(INDEX)
    (root / "other.html").write_text(OTHER)
    (root / "report.pdf").write_bytes(b"%PDF-1.4\n% test\n")
    (root / "paper.pdf").write_bytes(b"%PDF-1.4\n% shown inline by Chromium's viewer\n")
    (root / "upload.html").write_text(UPLOAD)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("browser-workspace")


@pytest.fixture(scope="module")
def server(workspace: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    if find_chromium() is None:
        pytest.fail("Chromium is missing: `apt-get install -y chromium` (make test does it)")
    port = free_port()
    user = os.environ.get("USER") or "root"
    env = dict(os.environ, SESSION_API_KEY=KEY, SU_TO_USER="false")
    command = [
        sys.executable, "-u", "-m", "openhands.runtime.action_execution_server", str(port),
        "--working-dir", str(workspace), "--username", user, "--user-id", str(os.getuid()),
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
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("server never became alive")
    yield url, proc
    browser = chromium_children(proc)
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    # A clean shutdown closes Chromium too (ActionExecutor.aclose), leaving no orphans.
    _, alive = psutil.wait_procs(browser, timeout=10)
    assert alive == [], f"Chromium outlived the server: {alive}"


def execute(server_url: str, action: str, **args: Any) -> dict[str, Any]:
    body = {"action": {"action": action, "args": args, "timeout": 120}}
    with httpx.Client(base_url=server_url, headers={"X-Session-API-Key": KEY}, timeout=150) as http:
        response = http.post("/execute_action", json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def interact(server_url: str, code: str, **args: Any) -> dict[str, Any]:
    return execute(server_url, "browse_interactive", browser_actions=code, **args)


def bid_of(content: str, pattern: str) -> str:
    """The bid on the first axtree line matching ``<role> '<name>'`` (a regex)."""
    found = re.search(rf"^\s*\[(\w+)\] {pattern}", content, re.MULTILINE)
    assert found, f"no line for {pattern!r} in:\n{content}"
    return found.group(1)


def chromium_children(proc: subprocess.Popen[bytes]) -> list[psutil.Process]:
    children = psutil.Process(proc.pid).children(recursive=True)
    return [p for p in children if "chrom" in p.name().lower()]


def test_chromium_starts_only_with_the_first_browse(
    server: tuple[str, subprocess.Popen[bytes]], site: str, workspace: Path
) -> None:
    url, proc = server
    assert chromium_children(proc) == []  # idle sandboxes carry no browser
    # ... but the downloads folder is there from the start whenever browsing is enabled.
    assert (workspace / ".downloads").is_dir()
    obs = execute(url, "browse", url=f"{site}/index.html")
    assert chromium_children(proc)
    assert obs["observation"] == "browse"
    extras = obs["extras"]
    assert extras["url"] == f"{site}/index.html"
    assert extras["trigger_by_action"] == "browse"
    assert extras["error"] is False and extras["last_browser_action_error"] == ""
    assert extras["last_browser_action"] == f'goto("{site}/index.html")'
    assert extras["open_pages_urls"] == [f"{site}/index.html"] and extras["active_page_index"] == 0
    # return_axtree=false: the structures are left out, the screenshots stay.
    assert extras["axtree_object"] == {} and extras["dom_object"] == {}
    content = obs["content"]
    assert content.startswith(
        f"[Current URL: {site}/index.html]\n============== BEGIN webpage content ==============\n"
    )
    assert content.endswith("\n============== END webpage content ==============\n")
    assert "# Hello browser" in content
    assert "Some text with a [Docs link](/other.html)." in content
    assert "after the image" in content and "logo" not in content


def test_screenshot_is_a_png_data_url_and_a_saved_file(
    server: tuple[str, subprocess.Popen[bytes]], site: str, workspace: Path
) -> None:
    obs = execute(server[0], "browse", url=f"{site}/index.html")
    extras = obs["extras"]
    for field in ("screenshot", "set_of_marks"):
        prefix = "data:image/png;base64,"
        assert extras[field].startswith(prefix), field
        assert base64.b64decode(extras[field][len(prefix) :]).startswith(PNG_MAGIC)
    assert extras["set_of_marks"] != extras["screenshot"]  # the marks were drawn on it
    path = Path(extras["screenshot_path"])
    assert path.parent == workspace / ".browser_screenshots"
    assert re.fullmatch(r"screenshot_\d{8}_\d{6}_\d{6}\.png", path.name)
    assert path.read_bytes().startswith(PNG_MAGIC)


def test_axtree_marks_elements_and_fill_click_change_the_page(
    server: tuple[str, subprocess.Popen[bytes]], site: str
) -> None:
    url = server[0]
    obs = interact(url, f"goto('{site}/index.html')", return_axtree=True)
    content = obs["content"]
    assert content.startswith(f"[Current URL: {site}/index.html]\n[Focused element bid: ]\n")
    assert "\n\n[Action executed successfully.]\nAccessibility tree of the COMPLETE webpage:\n" in (
        content
    )
    assert "\nRootWebArea 'Test Page', focused\n" in content
    link = bid_of(content, f"link 'Docs link', clickable, url='{site}/other.html'")
    textbox = bid_of(content, "textbox 'Name'")
    submit = bid_of(content, "button 'Submit', clickable")
    counter = bid_of(content, "button 'Count 0'")
    assert len({link, textbox, submit, counter}) == 4
    extras = obs["extras"]
    assert any(node.get("bid") == submit for node in extras["axtree_object"]["nodes"])
    assert extras["extra_element_properties"][submit]["clickable"] is True

    obs = interact(url, f"fill('{textbox}', 'Ann')\nclick('{submit}')\nclick('{counter}')")
    content = obs["content"]
    assert obs["extras"]["error"] is False, content
    assert f"[{textbox}] textbox 'Name' value='Ann'" in content
    assert "StaticText 'Hi Ann'" in content
    assert f"[{counter}] button 'Count 1'" in content  # same element, same bid
    assert obs["extras"]["focused_element_bid"] == counter
    assert f"[Focused element bid: {counter}]" in content

    obs = interact(url, f"click('{link}')")
    assert obs["extras"]["url"] == f"{site}/other.html"
    assert "StaticText 'The other page'" in obs["content"]
    obs = interact(url, "go_back()")
    assert obs["extras"]["url"] == f"{site}/index.html"


def test_action_errors_become_error_blocks(
    server: tuple[str, subprocess.Popen[bytes]], site: str, workspace: Path
) -> None:
    url = server[0]
    interact(url, f"goto('{site}/index.html')")
    obs = interact(url, "click('99999')\ngoto('about:blank')")
    extras = obs["extras"]
    assert extras["error"] is True
    assert (
        extras["last_browser_action_error"] == 'ValueError: Could not find element with bid "99999"'
    )
    assert extras["url"] == f"{site}/index.html"  # the sequence stopped at the error
    assert (
        "\n================ BEGIN error message ===============\n"
        "The following error occurred when executing the last action:\n"
        'ValueError: Could not find element with bid "99999"\n'
        "================ END error message ===============\n"
        "Accessibility tree of the COMPLETE webpage:\n"
    ) in obs["content"]

    marker = workspace / "pwned"
    obs = interact(url, f"__import__('os').system('touch {marker}')")
    assert obs["extras"]["error"] is True
    assert obs["extras"]["last_browser_action_error"].startswith("ActionParseError: ")
    assert not marker.exists()


def test_browse_error_and_file_urls(
    server: tuple[str, subprocess.Popen[bytes]], workspace: Path
) -> None:
    url = server[0]
    refused = f"http://127.0.0.1:{free_port()}/"
    obs = execute(url, "browse", url=refused)
    assert obs["extras"]["error"] is True
    assert "ERR_CONNECTION_REFUSED" in obs["extras"]["last_browser_action_error"]
    assert "The following error occurred when trying to visit the URL:\n" in obs["content"]

    page = workspace / "local.html"
    page.write_text("<html><body><p>from a file</p></body></html>")
    obs = execute(url, "browse", url=page.as_uri())  # passed through, not cwd-prefixed
    assert obs["extras"]["url"] == page.as_uri()
    assert "from a file" in obs["content"]


def test_download_is_saved_into_the_workspace(
    server: tuple[str, subprocess.Popen[bytes]], site: str, workspace: Path
) -> None:
    url = server[0]
    obs = interact(url, f"goto('{site}/index.html')")
    link = bid_of(obs["content"], "link 'Get report'")
    obs = interact(url, f"click('{link}')")
    assert obs["observation"] == "download", obs["content"]
    target = workspace / "file_1.pdf"
    assert obs["extras"]["file_path"] == str(target)
    assert obs["content"] == (
        f"Execution of the previous action click('{link}') resulted in a file download. "
        f"The downloaded file is saved at location: {target}"
    )
    assert target.read_bytes().startswith(b"%PDF")


def test_opening_a_pdf_gives_a_file_download(
    server: tuple[str, subprocess.Popen[bytes]], site: str, workspace: Path
) -> None:
    # Served inline (no attachment header): Chromium would show it in its PDF viewer, which
    # the agent cannot read; both kinds of browse action report a download instead.
    url = server[0]
    pdf = f"{site}/paper.pdf"
    expected = b"%PDF-1.4\n% shown inline by Chromium's viewer\n"
    for action, code in (
        ({"action": "browse", "url": pdf}, f'goto("{pdf}")'),
        ({"action": "browse_interactive", "browser_actions": f"goto('{pdf}')"}, f"goto('{pdf}')"),
    ):
        name = action.pop("action")
        obs = execute(url, name, **action)
        assert obs["observation"] == "download", obs["content"]
        target = Path(obs["extras"]["file_path"])
        assert re.fullmatch(r"file_\d+\.pdf", target.name) and target.parent == workspace
        assert target.read_bytes() == expected
        assert obs["content"] == (
            f"Execution of the previous action {code} resulted in a file download. "
            f"The downloaded file is saved at location: {target}"
        )
    assert (workspace / ".downloads" / "paper.pdf").read_bytes() == expected
    # Looking at the page again is not another download.
    obs = interact(url, "noop(0)")
    assert obs["observation"] == "browse" and obs["extras"]["url"] == pdf


def test_browse_url_with_a_quote_still_parses(
    server: tuple[str, subprocess.Popen[bytes]], site: str
) -> None:
    target = f'{site}/index.html?q="x"'
    obs = execute(server[0], "browse", url=target)
    assert obs["extras"]["error"] is False, obs["extras"]["last_browser_action_error"]
    assert obs["extras"]["last_browser_action"] == f'goto("{site}/index.html?q=\\"x\\"")'


def test_unlabelled_file_input_is_named_and_upload_shows_the_file(
    server: tuple[str, subprocess.Popen[bytes]], site: str, workspace: Path
) -> None:
    url = server[0]
    obs = interact(url, f"goto('{site}/upload.html')")
    content = obs["content"]
    anonymous = bid_of(content, "button 'Choose File' value='No file chosen', clickable")
    labelled = bid_of(content, "button 'Your CV' value='No file chosen', clickable")
    assert anonymous != labelled
    upload = workspace / "notes.txt"
    upload.write_text("notes")
    obs = interact(url, f"upload_file('{anonymous}', '{upload}')")
    assert obs["extras"]["error"] is False, obs["extras"]["last_browser_action_error"]
    assert f"[{anonymous}] button 'Choose File' value='notes.txt'" in obs["content"]
    show = bid_of(obs["content"], "button 'Show'")
    obs = interact(url, f"click('{show}')")
    assert "StaticText 'Picked notes.txt'" in obs["content"]


def test_a_page_opened_in_a_new_tab_becomes_active(
    server: tuple[str, subprocess.Popen[bytes]], site: str
) -> None:
    url = server[0]
    obs = interact(url, f"goto('{site}/index.html')")
    link = bid_of(obs["content"], "link 'Open in a new tab'")
    obs = interact(url, f"click('{link}')")
    extras = obs["extras"]
    assert extras["open_pages_urls"] == [f"{site}/index.html", f"{site}/other.html"]
    assert extras["active_page_index"] == 1
    assert extras["url"] == f"{site}/other.html"
    assert "StaticText 'The other page'" in obs["content"]


def test_a_killed_browser_is_restarted(
    server: tuple[str, subprocess.Popen[bytes]], site: str
) -> None:
    url, proc = server
    execute(url, "browse", url=f"{site}/index.html")
    victims = chromium_children(proc)
    assert victims
    for victim in victims:
        victim.kill()
    psutil.wait_procs(victims, timeout=10)
    obs = execute(url, "browse", url=f"{site}/other.html")
    assert obs["observation"] == "browse", obs
    assert "The other page" in obs["content"]


async def test_missing_chromium_answers_the_disabled_error(tmp_path: Path) -> None:
    handler = BrowserHandler(str(tmp_path), chromium_path=str(tmp_path / "no-chromium"))
    try:
        obs = await handler.handle(BrowseURLAction("http://127.0.0.1:1/"))
    finally:
        await handler.close()
    assert isinstance(obs, ErrorObservation)
    assert obs.content == "Browser functionality is not supported or disabled."


async def test_a_step_over_the_time_limit_fails_and_the_browser_restarts(tmp_path: Path) -> None:
    handler = BrowserHandler(str(tmp_path))
    handler.env.step_timeout = 1.5
    try:
        obs = await handler.handle(BrowseInteractiveAction("noop(5000)"))
        assert isinstance(obs, BrowserOutputObservation)
        assert obs.error is True
        assert obs.last_browser_action_error == "Browser environment took too long to respond."
        assert obs.url == "" and obs.screenshot == "" and obs.screenshot_path is None
        assert "Browser environment took too long to respond.\n" in obs.content
        assert not handler.env.running  # torn down; the next step starts a fresh one
        handler.env.step_timeout = 60
        obs = await handler.handle(BrowseURLAction("data:text/html,<p>fresh start</p>"))
        assert isinstance(obs, BrowserOutputObservation)
        assert obs.error is False and "fresh start" in obs.content
    finally:
        await handler.close()
