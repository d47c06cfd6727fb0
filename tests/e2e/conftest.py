"""Fixtures of the browser end-to-end suite.

One real server process (``python -m uvicorn openhands.server.listen:app``) serves the
production UI build over a temporary file store and runs conversations in Docker sandboxes;
one scripted OpenAI-compatible LLM answers over real HTTP; Debian's Chromium, driven by
Playwright, is the user. The server, the LLM and the browser are shared by the whole session;
every test gets a fresh page whose final screen is saved to
``test-artifacts/e2e/<test name>.png`` (failures included), next to its console log.

The LLM is shared by concurrent conversations, so its replies are routed: a request without
tools (the server's title generator) gets a title, and an agent turn gets the next reply
queued under the ``[e2e:<tag>]`` marker found in the conversation's first user message.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Coroutine, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from playwright.sync_api import (
    BrowserContext,
    ConsoleMessage,
    Locator,
    Page,
    WebSocket,
    expect,
    sync_playwright,
)

from tests.support.scripted_llm import ScriptedLLMServer, ScriptEntry, ScriptItem, text

T = TypeVar("T")

REPO_ROOT = Path(__file__).resolve().parents[2]
FRONTEND = REPO_ROOT / "frontend"
BUILD_INDEX = FRONTEND / "build" / "index.html"
ARTIFACTS = REPO_ROOT / "test-artifacts" / "e2e"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MODEL = "openai/test-model"
API_KEY = "sk-e2e-test-key"
TITLE_REPLY = "E2E conversation"
# What the server logs when a conversation's agent session cannot start.
SESSION_FAILED = "Failed to start the agent session"
# What Chrome logs for any response with an error status (here: the first-run settings 404).
FAILED_RESOURCE_404 = (
    "Failed to load resource: the server responded with a status of 404 (Not Found)"
)


def docker_available() -> bool:
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    e2e_dir = Path(__file__).parent
    ours = [item for item in items if item.path.is_relative_to(e2e_dir)]
    for item in ours:
        item.add_marker(pytest.mark.e2e)
    needs_docker = [item for item in ours if item.get_closest_marker("docker")]
    if needs_docker and not docker_available():
        skip = pytest.mark.skip(
            reason="no Docker engine answers `docker info`: run `bash containers/dev/ensure-docker.sh`"
        )
        for item in needs_docker:
            item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


# --------------------------------------------------------------------------------------
# The UI build
# --------------------------------------------------------------------------------------


def _newest_source_mtime() -> float:
    paths: list[Path] = [p for p in (FRONTEND / "src").rglob("*") if p.is_file()]
    paths += [FRONTEND / name for name in ("index.html", "vite.config.ts", "package.json")]
    return max(p.stat().st_mtime for p in paths if p.exists())


@pytest.fixture(scope="session")
def frontend_build() -> Path:
    """``frontend/build``, rebuilt with ``npm run build`` when missing or older than the sources."""
    if not BUILD_INDEX.exists() or BUILD_INDEX.stat().st_mtime < _newest_source_mtime():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("frontend/build is missing or stale and npm is not installed")
        if not (FRONTEND / "node_modules").is_dir():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=FRONTEND, check=True)
        result = subprocess.run(
            [npm, "run", "build"], cwd=FRONTEND, capture_output=True, text=True, timeout=600
        )
        if result.returncode != 0:
            pytest.fail(f"npm run build failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return BUILD_INDEX.parent


# --------------------------------------------------------------------------------------
# The scripted LLM
# --------------------------------------------------------------------------------------

TAG = re.compile(r"\[e2e:([a-z0-9-]+)\]")


class LLMRouter:
    """Answers every completion request of the shared scripted LLM server.

    Title requests (the server's title prompt, no ``tools``) get :data:`TITLE_REPLY`. Agent
    turns are answered from the queue of the scenario whose ``[e2e:<tag>]`` marker appears
    first in the request's messages; an unknown tag or an empty queue gets a plain text reply
    (the agent then waits for the user) and the tag is recorded in :attr:`unscripted`.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: dict[str, deque[ScriptEntry]] = {}
        self.unscripted: list[str | None] = []

    def script(self, tag: str, items: Iterable[ScriptEntry]) -> str:
        """Queue ``items`` for the scenario ``tag``; returns the marker to put in the task."""
        if not TAG.fullmatch(f"[e2e:{tag}]"):
            raise ValueError(f"bad scenario tag {tag!r}")
        with self._lock:
            self._queues.setdefault(tag, deque()).extend(items)
        return f"[e2e:{tag}]"

    def remaining(self, tag: str) -> int:
        with self._lock:
            return len(self._queues.get(tag, ()))

    def __call__(self, body: dict[str, Any]) -> ScriptItem:
        messages = json.dumps(body.get("messages", []))
        if not body.get("tools") and "Write a short title" in messages:
            return text(TITLE_REPLY)
        match = TAG.search(messages)
        tag = match.group(1) if match else None
        with self._lock:
            queue = self._queues.get(tag) if tag else None
            entry = queue.popleft() if queue else None
            if entry is None:
                self.unscripted.append(tag)
        if entry is None:
            return text("There is nothing more in my script.")
        return entry if not callable(entry) else entry(body)


@pytest.fixture(scope="session")
def llm_router() -> LLMRouter:
    return LLMRouter()


@pytest.fixture(scope="session")
def scripted_llm(llm_router: LLMRouter) -> Iterator[ScriptedLLMServer]:
    server = ScriptedLLMServer(fallback=llm_router).start()
    try:
        yield server
    finally:
        server.stop()


# --------------------------------------------------------------------------------------
# The server process
# --------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class E2EServer:
    url: str
    home: Path  # the server's working directory (config.toml, server.log)
    store: Path  # file_store_path
    llm_base_url: str
    process: subprocess.Popen[bytes]
    api: httpx.Client

    @property
    def log_path(self) -> Path:
        return self.home / "server.log"

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def store_settings(self, **overrides: Any) -> None:
        """Save complete settings through the API (what the settings page sends)."""
        values: dict[str, Any] = {
            "llm_model": MODEL,
            "llm_api_key": API_KEY,
            "llm_base_url": self.llm_base_url,
            "agent": "CodeActAgent",
            "confirmation_mode": False,
            "enable_default_condenser": False,
        }
        values.update(overrides)
        response = self.api.post("/api/settings", json=values)
        assert response.status_code == 200, response.text

    def stop(self, conversation_id: str) -> None:
        try:
            self.api.post(f"/api/conversations/{conversation_id}/stop", timeout=120)
        except httpx.HTTPError:
            pass

    def delete(self, conversation_id: str) -> None:
        """Close the conversation and remove its sandbox container and its files."""
        try:
            self.api.delete(f"/api/conversations/{conversation_id}", timeout=120)
        except httpx.HTTPError:
            pass

    def events(self, conversation_id: str) -> list[dict[str, Any]]:
        """Every stored event of the conversation (the /events route, 100 per page)."""
        events: list[dict[str, Any]] = []
        while True:
            response = self.api.get(
                f"/api/conversations/{conversation_id}/events",
                params={"start_id": events[-1]["id"] + 1 if events else 0, "limit": 100},
            )
            assert response.status_code == 200, response.text
            page = response.json()
            events += page["events"]
            if not page["has_more"]:
                return events

    def list_files(self, conversation_id: str) -> list[str]:
        response = self.api.get(f"/api/conversations/{conversation_id}/list-files")
        assert response.status_code == 200, response.text
        return list(response.json())


def _config_toml(store: Path) -> str:
    return f"""
[core]
runtime = "docker"
file_store = "local"
file_store_path = "{store}"
enable_browser = true
max_iterations = 30

[llm]
# The scripted replies are OpenAI tool calls; LiteLLM does not know "test-model" supports them.
native_tool_calling = true
num_retries = 0
retry_min_wait = 0
retry_max_wait = 0

[sandbox]
timeout = 60
"""


def _wait_alive(server: E2EServer) -> bool:
    """Wait for ``/alive``; False when the server exited because its port was taken."""
    deadline = time.monotonic() + 60
    while True:
        if server.process.poll() is not None:
            if "address already in use" in server.log_tail().lower():
                return False
            pytest.fail(f"the server exited with {server.process.returncode}:\n{server.log_tail()}")
        try:
            if server.api.get("/alive", timeout=2).json() == {"status": "ok"}:
                return True
        except (httpx.HTTPError, ValueError):
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"the server did not answer /alive within 60 s:\n{server.log_tail()}")
        time.sleep(0.1)


@contextmanager
def running_server(
    home: Path, frontend_build: Path, llm_base_url: str, sandbox_toml: str = ""
) -> Iterator[E2EServer]:
    """A server process in ``home`` (its config.toml, server.log and file store);
    ``sandbox_toml``: extra lines for the ``[sandbox]`` table."""
    store = home / "store"
    (home / "config.toml").write_text(_config_toml(store) + sandbox_toml)
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "FRONTEND_DIR": str(frontend_build),
        "SERVE_FRONTEND": "true",
        "RATE_LIMIT_EXEMPT_LOOPBACK": "1",
        "LOG_LEVEL": "INFO",
        "PYTHONUNBUFFERED": "1",  # the log is read while the server runs
    }
    for name in ("SESSION_API_KEY", "PERMITTED_CORS_ORIGINS", "APP_MODE", "OPENHANDS_USER_AUTH"):
        env.pop(name, None)
    log = (home / "server.log").open("wb")
    command = [sys.executable, "-m", "uvicorn", "openhands.server.listen:app"]
    server: E2EServer | None = None
    try:
        # A port found free can be taken by another process (a sandbox, a parallel test)
        # before the server binds it; such a start is retried on another port.
        for attempt in range(3):
            port = _free_port()
            process = subprocess.Popen(
                [*command, "--host", "127.0.0.1", "--port", str(port)],
                cwd=home,  # config.toml is read from the working directory
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            url = f"http://127.0.0.1:{port}"
            server = E2EServer(
                url, home, store, llm_base_url, process, httpx.Client(base_url=url, timeout=60)
            )
            if _wait_alive(server) or attempt == 2:
                break
            server.api.close()
        assert server is not None
        if server.process.poll() is not None:
            pytest.fail(f"the server exited with {server.process.returncode}:\n{server.log_tail()}")
        yield server
    finally:
        if server is not None:
            server.api.close()
            server.process.terminate()
            try:
                server.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.process.kill()
                server.process.wait()
        log.close()


@pytest.fixture(scope="session")
def e2e_server(
    frontend_build: Path, scripted_llm: ScriptedLLMServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[E2EServer]:
    home = tmp_path_factory.mktemp("e2e-server")
    try:
        with running_server(home, frontend_build, scripted_llm.base_url) as server:
            yield server
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(home / "server.log", ARTIFACTS / "server.log")


@pytest.fixture
def configured(e2e_server: E2EServer) -> E2EServer:
    """The server with complete LLM settings pointing at the scripted LLM."""
    e2e_server.store_settings()
    return e2e_server


# --------------------------------------------------------------------------------------
# The browser
# --------------------------------------------------------------------------------------


@pytest.fixture
def in_english_afterwards(configured: E2EServer) -> Iterator[E2EServer]:
    """The configured server; the next test starts from the default UI language whatever
    language this one stored."""
    yield configured
    configured.store_settings()


@pytest.fixture(scope="session")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (make browser)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


@dataclass
class ConsoleEntry:
    type: str
    text: str
    url: str

    def __str__(self) -> str:
        return f"[{self.type}] {self.text} ({self.url})"


@dataclass
class BrowserPage:
    """A page plus what it logged: console messages and uncaught page errors."""

    page: Page
    server: E2EServer
    console: list[ConsoleEntry] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    # Conversations this test started: closed once the screenshot is taken.
    conversations: list[str] = field(default_factory=list)
    # Per Socket.IO connection, the ids of the `oh_event` payloads received, in order,
    # and the handshake URL (its query carries `latest_event_id`).
    socket_event_ids: list[list[int]] = field(default_factory=list)
    socket_urls: list[str] = field(default_factory=list)
    # Where the server log stood when the test began (to spot the test's own failures).
    log_offset: int = 0

    def record_socket(self, websocket: WebSocket) -> None:
        ids: list[int] = []
        self.socket_event_ids.append(ids)
        self.socket_urls.append(websocket.url)

        def on_frame(payload: str | bytes) -> None:
            # Engine.IO message 4 + Socket.IO event 2: `42["oh_event",{...}]`.
            if isinstance(payload, str) and payload.startswith('42["oh_event"'):
                data = json.loads(payload[2:])[1]
                if isinstance(data, dict) and isinstance(data.get("id"), int):
                    ids.append(data["id"])

        websocket.on("framereceived", on_frame)

    def goto(self, path: str) -> None:
        self.page.goto(self.server.url + path)

    def raise_if_a_session_failed(self) -> None:
        """Fail at once (instead of at a timeout) when the server logged a failed start."""
        try:
            with self.server.log_path.open("rb") as log:
                log.seek(self.log_offset)
                new = log.read().decode(errors="replace")
        except OSError:
            return
        if SESSION_FAILED in new:
            at = new.index(SESSION_FAILED)
            raise AssertionError(f"the server failed to start a conversation:\n{new[at:][:3000]}")

    def console_errors(self) -> list[ConsoleEntry]:
        return [entry for entry in self.console if entry.type == "error"]


def _artifact_name(item: pytest.Item) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", item.name)


@pytest.fixture
def ui(
    request: pytest.FixtureRequest, browser_context: BrowserContext, e2e_server: E2EServer
) -> Iterator[BrowserPage]:
    """A fresh page on the e2e server; its final screen and console log go to test-artifacts."""
    page = browser_context.new_page()
    page.set_default_timeout(20_000)
    recorded = BrowserPage(page, e2e_server, log_offset=e2e_server.log_path.stat().st_size)

    def on_console(message: ConsoleMessage) -> None:
        location = message.location or {}
        recorded.console.append(ConsoleEntry(message.type, message.text, location.get("url", "")))

    page.on("console", on_console)
    page.on("pageerror", lambda error: recorded.page_errors.append(str(error)))
    page.on("websocket", recorded.record_socket)
    try:
        yield recorded
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        name = _artifact_name(request.node)
        try:
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        except Exception as error:  # a crashed page must not hide the test's own failure
            print(f"screenshot of {name} failed: {error}")
        lines = [str(entry) for entry in recorded.console]
        lines += [f"[pageerror] {error}" for error in recorded.page_errors]
        (ARTIFACTS / f"{name}.console.txt").write_text("\n".join(lines) + "\n")
        try:
            # The browser profile outlives the test: what the page remembered (the workspace
            # panel's tab and size, the sidebar) must not steer the next test.
            if page.url.startswith(e2e_server.url):
                page.evaluate("localStorage.clear()")
        except Exception as error:
            print(f"clearing the page's storage failed: {error}")
        report = getattr(request.node, "rep_call", None)
        passed = report is not None and report.passed
        if report is not None and report.failed:
            print(f"--- server log (tail) ---\n{e2e_server.log_tail()}")
        page.close()
        # A passed test leaves nothing behind; a failed one keeps its files and (stopped) sandbox.
        for conversation_id in recorded.conversations:
            if passed:
                e2e_server.delete(conversation_id)
            else:
                e2e_server.stop(conversation_id)


# --------------------------------------------------------------------------------------
# UI steps shared by the tests
# --------------------------------------------------------------------------------------

SANDBOX_START_S = 180.0  # the first start builds the sandbox image if its sources changed


def wait_agent_state(ui: BrowserPage, state: str, timeout: float = SANDBOX_START_S) -> None:
    """Wait (``timeout`` seconds) until the status line's agent state (``data-state``) is
    ``state``; fail early if the server logs that a conversation could not start."""
    badge = ui.page.get_by_test_id("agent-status")
    deadline = time.monotonic() + timeout
    while True:
        try:
            expect(badge).to_have_attribute("data-state", state, timeout=min(1.0, timeout) * 1000)
            return
        except AssertionError:
            if time.monotonic() >= deadline:
                raise
        ui.raise_if_a_session_failed()


def start_from_home(ui: BrowserPage, task: str) -> str:
    """Type ``task`` on the home page, start, and return the new conversation's id."""
    ui.goto("/")
    box = ui.page.get_by_test_id("new-conversation-task")
    expect(box).to_be_enabled()
    box.fill(task)
    ui.page.get_by_test_id("start-conversation").click()
    ui.page.wait_for_url(re.compile(r"/conversations/[0-9a-f]{32}$"))
    conversation_id = ui.page.url.rsplit("/", 1)[-1]
    ui.conversations.append(conversation_id)
    expect(ui.page.get_by_test_id("conversation-page")).to_be_visible()
    return conversation_id


def command_output(event: Locator) -> Locator:
    """Unfold a run observation's folded output and return the block that shows it."""
    output = event.get_by_test_id("command-output")
    if output.get_attribute("open") is None:
        output.locator("summary").click()
    return output.locator(".collapsible__body")


def send_chat(ui: BrowserPage, message: str) -> None:
    box = ui.page.get_by_test_id("chat-input")
    expect(box).to_be_enabled()
    box.fill(message)
    ui.page.get_by_test_id("send-button").click()


def rendered_event_ids(ui: BrowserPage) -> list[int]:
    """``data-event-id`` of every event article in the chat, in document order."""
    ids = (
        ui.page.get_by_test_id("event-list")
        .locator("article[data-event-id]")
        .evaluate_all("nodes => nodes.map(n => Number(n.dataset.eventId))")
    )
    return [int(i) for i in ids]


def socket_resumed_after(ui: BrowserPage, index: int = -1) -> int:
    """The `latest_event_id` a Socket.IO connection of the page handed the server."""
    query = parse_qs(urlsplit(ui.socket_urls[index]).query)
    return int(query["latest_event_id"][0])


def terminal_text(ui: BrowserPage) -> str:
    """The text on the xterm.js screen (its DOM renderer's rows)."""
    rows = ui.page.get_by_test_id("terminal").locator(".xterm-rows")
    return str(rows.inner_text()).replace("\u00a0", " ")


def run_async(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to completion from a test (Playwright's sync API owns this thread's loop)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


def wait_until(predicate: Callable[[], bool], timeout: float, message: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(message)
        time.sleep(0.2)
