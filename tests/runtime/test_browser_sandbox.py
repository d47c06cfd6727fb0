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
        assert f"Location of downloaded file: {obs.file_path}" in str(obs)
        saved = sandbox.sh(f"head -c 8 {obs.file_path}").content
        assert saved.startswith("%PDF-1.4"), saved
    finally:
        sandbox.run(f"kill $(cat {site}/http.pid)")


# A one-page PDF with one line of text, and a 2x2 PNG, written by the sandbox's own Python.
MAKE_PDF = r"""
import sys
stream = b"BT /F1 24 Tf 100 700 Td (Viewer test line) Tj ET"
objects = [
    b"<</Type/Catalog/Pages 2 0 R>>",
    b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
    b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R"
    b"/Resources<</Font<</F1 5 0 R>>>>>>",
    b"<</Length %d>>stream\n" % len(stream) + stream + b"\nendstream",
    b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>",
]
out, offsets = bytearray(b"%PDF-1.4\n"), []
for number, body in enumerate(objects, 1):
    offsets.append(len(out))
    out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
xref = len(out)
out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
out += b"trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
open(sys.argv[1], "wb").write(out)
"""
MAKE_PNG = r"""
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
rows = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
"""


@pytest.mark.parametrize(
    ("name", "maker", "shown_as"),
    [
        ("picture.png", MAKE_PNG, ["img 'picture.png'"]),
        # The PDF's text is in the page the agent reads, not only in the plugin frame.
        ("paper.pdf", MAKE_PDF, ["EmbeddedObject", "Page 1", "Viewer test line"]),
    ],
)
def test_file_viewer_shows_local_images_and_pdfs(
    sandbox: Sandbox, name: str, maker: str, shown_as: list[str]
) -> None:
    """The viewer page (runtime.md §3.6) is titled after the file and shows it: an image
    as an image, a PDF in Chromium's own viewer followed by its text; the browser step
    saves a screenshot."""
    folder = f"{sandbox.workspace}/viewer"
    sandbox.sh(f"mkdir -p {folder} && cat > {folder}/make.py <<'EOF'\n{maker}\nEOF")
    sandbox.sh(f"python3 {folder}/make.py {folder}/{name}")
    viewer = sandbox.sh("cat /tmp/oh-server-url").content.strip()
    assert viewer.startswith("http://localhost:"), viewer

    action = BrowseInteractiveAction(
        browser_actions=f'goto("{viewer}/view?path={folder}/{name}")', return_axtree=False
    )
    obs = sandbox.via_stream(action, wait=180)
    assert isinstance(obs, BrowserOutputObservation), obs
    assert obs.error is False, obs.content
    assert "[Action executed successfully.]" in obs.content
    assert f"RootWebArea 'File Viewer - {name}'" in obs.content
    for shown in shown_as:
        assert shown in obs.content
    assert obs.screenshot_path is not None
    assert f"[Screenshot saved to: {obs.screenshot_path}]" in obs.content
    listed = sandbox.sh(f"ls {sandbox.workspace}/.browser_screenshots").content
    assert obs.screenshot_path.rsplit("/", 1)[1] in listed
