"""Measurements, recorded and not asserted on: how long a 1,000-event conversation takes to
show up in the browser, and how much JavaScript the first page load needs.

Both go to ``test-artifacts/e2e/measurements.json`` (each test updates its own keys).
"""

from __future__ import annotations

import gzip
import json
import re
import time
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from playwright.sync_api import Response, expect

from openhands.events.action import CmdRunAction, MessageAction
from openhands.events.event import EventSource
from openhands.events.observation import CmdOutputObservation
from openhands.events.stream import EventStream
from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.data_models.conversation_metadata import ConversationMetadata
from openhands.storage.local import LocalFileStore
from tests.e2e.conftest import (
    ARTIFACTS,
    SANDBOX_START_S,
    BrowserPage,
    E2EServer,
    run_async,
)

EVENT_COUNT = 1000
MEASUREMENTS = ARTIFACTS / "measurements.json"

# Installed before the app loads. Stamps, in ms since navigation start (performance.now()):
# when the socket is opened, when its first message arrives, and when the first and the last
# seeded event appear in the DOM.
_RENDER_PROBE = """
(() => {
  const last = %d;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      if (window.__e2eSocketAt === undefined) window.__e2eSocketAt = performance.now();
      this.addEventListener("message", () => {
        if (window.__e2eFirstMessageAt === undefined) window.__e2eFirstMessageAt = performance.now();
      });
    }
  };
  const stamp = () => {
    if (window.__e2eFirstEventAt === undefined && document.querySelector("article[data-event-id]")) {
      window.__e2eFirstEventAt = performance.now();
    }
    if (window.__e2eLastEventAt === undefined &&
        document.querySelector(`article[data-event-id="${last}"]`)) {
      window.__e2eLastEventAt = performance.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(stamp);
  observer.observe(document, { childList: true, subtree: true });
})();
"""


def record(values: dict[str, Any]) -> None:
    """Merge ``values`` into measurements.json."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        data = json.loads(MEASUREMENTS.read_text())
    except (OSError, ValueError):
        data = {}
    data.update(values)
    MEASUREMENTS.write_text(json.dumps(data, indent=2) + "\n")


def seed_conversation(server: E2EServer, count: int) -> str:
    """``count`` events written through an EventStream on the server's store, plus metadata
    saved through the conversation store: a long conversation as the server would have left it."""
    conversation_id = uuid4().hex
    file_store = LocalFileStore(str(server.store))
    stream = EventStream(conversation_id, file_store)
    stream.add_event(
        MessageAction("[e2e:perf] Run a long series of small commands."), EventSource.USER
    )
    step = 0
    while stream.get_latest_event_id() + 1 < count:
        command = CmdRunAction(f"echo step {step} && seq 1 3", thought=f"Step {step}.")
        stream.add_event(command, EventSource.AGENT)
        if stream.get_latest_event_id() + 1 < count:
            output = CmdOutputObservation(
                f"step {step}\n1\n2\n3", command=command.command, metadata={"exit_code": 0}
            )
            output.cause = command.id
            stream.add_event(output, EventSource.AGENT)
        if stream.get_latest_event_id() + 1 < count:
            stream.add_event(MessageAction(f"Step {step} went fine."), EventSource.AGENT)
        step += 1
    stream.close()
    assert stream.get_latest_event_id() == count - 1
    now = datetime.now(UTC)
    metadata = ConversationMetadata(
        conversation_id=conversation_id,
        title="1,000 events",
        trigger="gui",
        created_at=now,
        last_updated_at=now,
    )
    run_async(lambda: FileConversationStore(file_store).save_metadata(metadata))
    return conversation_id


@pytest.mark.docker
def test_measure_opening_a_conversation_of_1000_events(
    ui: BrowserPage, configured: E2EServer
) -> None:
    conversation_id = seed_conversation(configured, EVENT_COUNT)
    assert len(configured.events(conversation_id)) == EVENT_COUNT
    last_id = EVENT_COUNT - 1
    page = ui.page
    page.add_init_script(_RENDER_PROBE % last_id)

    started = time.monotonic()
    ui.goto(f"/conversations/{conversation_id}")
    ui.conversations.append(conversation_id)  # opening it starts its agent loop and sandbox
    last = page.locator(f'article[data-event-id="{last_id}"]')
    expect(last).to_be_attached(timeout=SANDBOX_START_S * 1000)
    wall_s = time.monotonic() - started
    # The history comes over REST; the socket follows once the sandbox is up.
    page.wait_for_function(
        "window.__e2eFirstMessageAt !== undefined", timeout=SANDBOX_START_S * 1000
    )
    stamps = page.evaluate(
        "({socket: window.__e2eSocketAt, message: window.__e2eFirstMessageAt,"
        " first: window.__e2eFirstEventAt, last: window.__e2eLastEventAt,"
        " pages: performance.getEntriesByType('resource')"
        "   .filter(e => new URL(e.name).pathname.endsWith('/events'))"
        "   .map(e => e.responseEnd)})"
    )
    last_ms, first_ms = float(stamps["last"]), float(stamps["first"])
    # The newest page shows the last event; the older pages are fetched next to it. (The
    # restart may already have added an event or two, hence an extra request at most.)
    history_pages = [float(end) for end in stamps["pages"]]
    assert EVENT_COUNT // 100 <= len(history_pages) <= EVENT_COUNT // 100 + 1, history_pages
    socket_ms, message_ms = float(stamps["socket"]), float(stamps["message"])
    expect(last).to_contain_text("Step 332 went fine.")
    expect(page.get_by_test_id("agent-status")).to_have_attribute(
        "data-state", "awaiting_user_input"
    )
    # The list mounts the newest events only (older ones on request), each once.
    ids = page.get_by_test_id("event-list").locator("article[data-event-id]")
    rendered = [int(i) for i in ids.evaluate_all("ns => ns.map(n => Number(n.dataset.eventId))")]
    assert len(rendered) == len(set(rendered))

    result = {
        "events": EVENT_COUNT,
        "navigation_to_last_event_ms": round(last_ms, 1),
        "navigation_to_socket_open_ms": round(socket_ms, 1),
        "navigation_to_first_socket_message_ms": round(message_ms, 1),
        "navigation_to_first_event_ms": round(first_ms, 1),
        "navigation_to_whole_history_fetched_ms": round(max(history_pages), 1),
        "history_requests": len(history_pages),
        "wall_clock_s": round(wall_s, 2),
        "rendered_event_articles": len(rendered),
        "note": (
            "the page fetches the stored events over REST (GET .../events, 100 a page) and "
            "renders them while the conversation starts; navigation_to_socket_open includes "
            "starting the agent loop and sandbox (STARTING is polled from 0.5 s backing off to "
            "3 s), and the socket then resumes after the last event held"
        ),
        "measured_at": datetime.now(UTC).isoformat(),
    }
    record({"render_1000_events": result})
    print(
        f"\n1,000 events: last event rendered {last_ms:.0f} ms after navigation "
        f"(whole history fetched at {max(history_pages):.0f} ms; "
        f"socket opened at {socket_ms:.0f} ms)"
    )
    assert ui.page_errors == []


class _EntryScripts(HTMLParser):
    """Script sources and module preloads of index.html: what the first load fetches."""

    def __init__(self) -> None:
        super().__init__()
        self.sources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script" and values.get("src"):
            self.sources.append(str(values["src"]))
        if tag == "link" and values.get("rel") == "modulepreload" and values.get("href"):
            self.sources.append(str(values["href"]))


def test_measure_initial_route_javascript(
    ui: BrowserPage, e2e_server: E2EServer, frontend_build: Path
) -> None:
    """The JS that index.html's script tags (and module preloads) load, raw and gzipped, plus
    what the browser actually fetched to show the home page."""
    parser = _EntryScripts()
    parser.feed((frontend_build / "index.html").read_text())
    assert parser.sources, "index.html loads no script"
    files = []
    for source in parser.sources:
        path = frontend_build / re.sub(r"^/", "", source.split("?", 1)[0])
        data = path.read_bytes()
        files.append(
            {"file": source, "raw_bytes": len(data), "gzip_bytes": len(gzip.compress(data, 9))}
        )
    raw = sum(f["raw_bytes"] for f in files)
    gz = sum(f["gzip_bytes"] for f in files)

    fetched: list[str] = []

    def on_response(response: Response) -> None:
        if response.request.resource_type == "script":
            fetched.append(response.url.removeprefix(e2e_server.url))

    ui.page.on("response", on_response)
    ui.goto("/")
    expect(ui.page.get_by_test_id("new-conversation-task")).to_be_visible()
    ui.page.wait_for_load_state("networkidle")
    assert set(parser.sources) <= set(fetched), fetched

    record(
        {
            "initial_route_js": {
                "files": files,
                "raw_bytes": raw,
                "gzip_bytes": gz,
                "fetched_by_home_page": fetched,
                "measured_at": datetime.now(UTC).isoformat(),
            }
        }
    )
    print(f"\ninitial-route JS: {raw / 1024:.1f} KiB raw, {gz / 1024:.1f} KiB gzip")
