"""The daily-use UI in real Chromium: status in words with the task shown at once, the
conversation menu, the sidebar (switching while agents run, rename, open in a new tab,
export, stop, delete) and the live overview of running agents.

Agents that must stay busy while the test looks run a command that waits for a file the test
uploads (``release``), so "while it runs" never depends on timing.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import (
    SANDBOX_START_S,
    BrowserPage,
    E2EServer,
    LLMRouter,
    start_from_home,
    wait_agent_state,
    wait_until,
)
from tests.support.scripted_llm import ScriptItem, Usage, tool_call

pytestmark = pytest.mark.docker

# Records, from the first paint on, every text the status line shows, how many status lines
# exist at each change, and whether the task was on screen before any stored event.
_STATUS_PROBE = """
(() => {
  window.__statusTexts = [];
  window.__statusLineCounts = [];
  window.__taskBeforeEvents = null;
  const look = () => {
    const lines = document.querySelectorAll('[data-testid="status-line"]');
    if (lines.length) window.__statusLineCounts.push(lines.length);
    for (const line of lines) {
      const text = line.querySelector('.status-line__text')?.textContent ?? '';
      const seen = window.__statusTexts;
      if (text && seen[seen.length - 1] !== text) seen.push(text);
    }
    if (window.__taskBeforeEvents === null) {
      const pending = document.querySelector('[data-testid="pending-message"]');
      const event = document.querySelector('article[data-event-id]');
      if (pending || event) window.__taskBeforeEvents = Boolean(pending) && !event;
    }
  };
  new MutationObserver(look).observe(document, {subtree: true, childList: true, characterData: true});
})();
"""

RAW_STATE = re.compile(r"^[a-z]+(_[a-z]+)*$")
START_UP_TEXTS = {
    "Loading the conversation…",
    "Starting the sandbox…",
    "Building the sandbox image…",
    "Connecting to the agent…",
    "Waiting for the agent to start…",
    "Starting the agent…",
}


def bash(command: str) -> ScriptItem:
    # A long hard timeout: the command waits for the test, not for the sandbox's default.
    return tool_call("execute_bash", {"command": command, "timeout": 240, "security_risk": "LOW"})


def finish(message: str) -> ScriptItem:
    return tool_call("finish", {"message": message})


def wait_for_release(name: str) -> str:
    """A command that runs until the test uploads ``/workspace/<name>`` (printing as it waits,
    so the sandbox never reads it as a stuck command)."""
    return f"until [ -f /workspace/{name} ]; do echo waiting; sleep 1; done; echo {name}-released"


def release(server: E2EServer, conversation_id: str, name: str) -> None:
    response = server.api.post(
        f"/api/conversations/{conversation_id}/upload-files",
        files=[("files", (name, b"go\n", "text/plain"))],
    )
    assert response.status_code == 200, response.text


def sidebar_item(page: Page, conversation_id: str) -> Locator:
    return page.locator(
        f'[data-testid="sidebar-conversation"][data-conversation-id="{conversation_id}"]'
    )


def overview_row(page: Page, conversation_id: str) -> Locator:
    return page.locator(f'[data-testid="overview-row"][data-conversation-id="{conversation_id}"]')


def start_waiting_agent(ui: BrowserPage, llm_router: LLMRouter, tag: str, file: str) -> str:
    command = wait_for_release(file)
    marker = llm_router.script(tag, [bash(command), finish(f"{file} seen.")])
    conversation_id = start_from_home(ui, f"{marker} Wait for {file}.")
    wait_agent_state(ui, "running")
    expect(
        ui.page.locator('[data-testid="event-run"][data-event-kind="action"]', has_text=file)
    ).to_be_visible(timeout=60_000)
    return conversation_id


def rename_in_sidebar(page: Page, conversation_id: str, title: str) -> None:
    item = sidebar_item(page, conversation_id)
    item.get_by_test_id("sidebar-item-menu").click()
    item.get_by_test_id("sidebar-rename").click()
    box = item.get_by_test_id("sidebar-rename-input")
    box.fill(title)
    box.press("Enter")
    expect(item.get_by_test_id("sidebar-conversation-link")).to_contain_text(title)


def test_task_shown_at_once_status_in_words_and_the_conversation_menu(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    page = ui.page
    page.add_init_script(_STATUS_PROBE)
    usage = Usage(
        prompt_tokens=1200, completion_tokens=40, cached_tokens=700, cache_creation_tokens=300
    )
    tag = llm_router.script(
        "words",
        [replace(tool_call("finish", {"message": "All done in words."}), usage=usage)],
    )
    task = f"{tag} Say that you are done."
    conversation_id = start_from_home(ui, task)
    wait_agent_state(ui, "finished")

    # The task was on screen before anything came back from the server, and then as the
    # server's own message; never twice.
    assert page.evaluate("window.__taskBeforeEvents") is True
    expect(page.locator('[data-testid="event-message"]', has_text=task)).to_have_count(1)
    expect(page.get_by_test_id("pending-message")).to_have_count(0)

    # One status line throughout, in sentences: start-up phases first, then the agent's state.
    counts = page.evaluate("window.__statusLineCounts")
    assert counts and set(counts) == {1}, counts
    texts: list[str] = page.evaluate("window.__statusTexts")
    assert texts[-1] == "Task finished. Send a message to continue.", texts
    assert START_UP_TEXTS & set(texts), texts
    assert not [t for t in texts if RAW_STATE.match(t)], texts
    expect(page.get_by_test_id("status-line")).to_have_text(
        "Task finished. Send a message to continue."
    )

    # The menu: usage (cache hits and writes included), the agent's tools, its microagents.
    page.get_by_test_id("conversation-menu-button").click()
    menu = page.get_by_test_id("conversation-menu")
    expect(menu).to_be_visible()
    expect(menu.get_by_test_id("menu-cache-read")).to_have_text("700")
    expect(menu.get_by_test_id("menu-cache-write")).to_have_text("300")
    expect(menu.get_by_test_id("menu-prompt-tokens")).to_have_text("1,200")
    expect(menu.get_by_test_id("menu-budget")).to_have_text("No budget set")
    tools = menu.get_by_test_id("menu-tool").locator("code").all_inner_texts()
    assert {"execute_bash", "finish", "str_replace_editor"} <= set(tools), tools
    expect(menu.get_by_test_id("menu-tools")).to_contain_text("CodeActAgent")
    microagents = menu.get_by_test_id("menu-microagents")
    expect(microagents.get_by_text("Loading…")).to_have_count(0)
    expect(microagents.locator(".form-error")).to_have_count(0)

    # Export: the trajectory as JSON, holding the task.
    with page.expect_download() as download_info:
        menu.get_by_test_id("menu-export").click()
    download = download_info.value
    assert download.suggested_filename == f"trajectory-{conversation_id}.json"
    trajectory = json.loads(Path(download.path()).read_text())
    assert any(e.get("action") == "message" and task in e.get("message", "") for e in trajectory)

    # Rename in place: header, sidebar and the browser tab follow.
    menu.get_by_test_id("menu-rename").click()
    page.get_by_test_id("title-rename-input").fill("Said done")
    page.get_by_test_id("title-rename-save").click()
    expect(page.get_by_test_id("conversation-page-title")).to_have_text("Said done")
    expect(page).to_have_title("Said done")
    expect(
        sidebar_item(page, conversation_id).get_by_test_id("sidebar-conversation-link")
    ).to_contain_text("Said done")
    assert configured.api.get(f"/api/conversations/{conversation_id}").json()["title"] == (
        "Said done"
    )

    # Delete from the menu: back home, gone from the server and the sidebar.
    page.get_by_test_id("conversation-menu-button").click()
    page.get_by_test_id("menu-delete").click()
    page.get_by_test_id("menu-confirm-delete").click()
    page.wait_for_url(re.compile(r"/$"))
    expect(sidebar_item(page, conversation_id)).to_have_count(0)
    assert configured.api.get(f"/api/conversations/{conversation_id}").json() is None
    assert ui.page_errors == []


def test_sidebar_and_overview_follow_two_running_agents(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    page = ui.page
    first = start_waiting_agent(ui, llm_router, "two-a", "go-a")
    rename_in_sidebar(page, first, "Agent A")
    second = start_waiting_agent(ui, llm_router, "two-b", "go-b")
    rename_in_sidebar(page, second, "Agent B")

    # Both run; the sidebar says so from any page.
    for conversation_id in (first, second):
        expect(
            sidebar_item(page, conversation_id).get_by_test_id("sidebar-conversation-status")
        ).to_have_text("Running")

    # Switch from the sidebar while both agents work: each page is that conversation's.
    sidebar_item(page, first).get_by_test_id("sidebar-conversation-link").click()
    page.wait_for_url(re.compile(f"/conversations/{first}$"))
    expect(page.get_by_test_id("conversation-page-title")).to_have_text("Agent A")
    expect(page).to_have_title("Agent A")
    wait_agent_state(ui, "running", timeout=30)
    expect(page.get_by_test_id("event-list")).to_contain_text("go-a")
    expect(page.get_by_test_id("event-list")).not_to_contain_text("go-b")
    expect(sidebar_item(page, first)).to_have_class(re.compile(r"sidebar-item--current"))

    sidebar_item(page, second).get_by_test_id("sidebar-conversation-link").click()
    page.wait_for_url(re.compile(f"/conversations/{second}$"))
    expect(page.get_by_test_id("conversation-page-title")).to_have_text("Agent B")
    expect(page).to_have_title("Agent B")
    wait_agent_state(ui, "running", timeout=30)
    expect(page.get_by_test_id("event-list")).to_contain_text("go-b")
    expect(page.get_by_test_id("event-list")).not_to_contain_text("go-a")

    # Open in a new tab: the other conversation, in its own page.
    item = sidebar_item(page, first)
    item.get_by_test_id("sidebar-item-menu").click()
    with page.context.expect_page() as new_tab_info:
        item.get_by_test_id("sidebar-open-new-tab").click()
    new_tab = new_tab_info.value
    try:
        new_tab.wait_for_url(re.compile(f"/conversations/{first}$"))
        expect(new_tab.get_by_test_id("conversation-page-title")).to_have_text("Agent A")
    finally:
        new_tab.close()

    # The overview: both agents, each row following its own conversation live.
    page.get_by_test_id("nav-overview").click()
    expect(page.get_by_test_id("overview-page")).to_be_visible()
    row_a, row_b = overview_row(page, first), overview_row(page, second)
    for row, file in ((row_a, "go-a"), (row_b, "go-b")):
        expect(row).to_have_attribute("data-state", "running", timeout=30_000)
        expect(row.get_by_test_id("overview-status")).to_contain_text("Running the task…")
        expect(row.get_by_test_id("overview-last-action")).to_contain_text(file)
        expect(row.get_by_test_id("overview-step")).to_have_text(re.compile(r"^[1-9]\d*$"))
        expect(row.get_by_test_id("overview-sandbox")).to_contain_text("Ready.")
        expect(row.get_by_test_id("overview-cost")).to_have_text(re.compile(r"^\$\d"))

    release(configured, first, "go-a")
    expect(row_a).to_have_attribute("data-state", "finished", timeout=60_000)
    expect(row_a.get_by_test_id("overview-last-action")).to_have_text("Finished the task")
    # B is still waiting: its row has not moved.
    expect(row_b).to_have_attribute("data-state", "running")
    expect(row_b.get_by_test_id("overview-last-action")).to_contain_text("go-b")

    release(configured, second, "go-b")
    expect(row_b).to_have_attribute("data-state", "finished", timeout=60_000)
    expect(row_b.get_by_test_id("overview-last-action")).to_have_text("Finished the task")

    # Stop from the overview: the row goes, the server agrees, the sidebar says so.
    row_b.get_by_test_id("overview-stop").click()
    expect(row_b).to_have_count(0, timeout=120_000)
    assert configured.api.get(f"/api/conversations/{second}").json()["status"] == "STOPPED"
    expect(sidebar_item(page, second).get_by_test_id("sidebar-conversation-status")).to_have_text(
        "Stopped"
    )

    # Stop and delete from the sidebar.
    item = sidebar_item(page, first)
    item.get_by_test_id("sidebar-item-menu").click()
    item.get_by_test_id("sidebar-stop").click()
    expect(item.get_by_test_id("sidebar-conversation-status")).to_have_text(
        "Stopped", timeout=120_000
    )
    expect(overview_row(page, first)).to_have_count(0)
    item.get_by_test_id("sidebar-item-menu").click()
    item.get_by_test_id("sidebar-delete").click()
    item.get_by_test_id("sidebar-confirm-delete").click()
    expect(sidebar_item(page, first)).to_have_count(0)
    assert configured.api.get(f"/api/conversations/{first}").json() is None
    wait_until(
        lambda: llm_router.remaining("two-a") == 0 and llm_router.remaining("two-b") == 0,
        SANDBOX_START_S,
        "the agents did not take their finish replies",
    )
    assert ui.page_errors == []
