"""Stopping and starting a conversation from the browser, and the Apps tab's served ports.

A real server runs CodeActAgent in Docker sandboxes; its LLM is the scripted server (each
scenario's replies are queued under the `[e2e:<tag>]` marker of its task). Stop and start go
through the UI's own controls (POST …/stop and …/start); the tests then check what the user
sees and what the server says.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, expect

from tests.e2e.conftest import (
    ARTIFACTS,
    SANDBOX_START_S,
    BrowserPage,
    E2EServer,
    LLMRouter,
    rendered_event_ids,
    send_chat,
    socket_resumed_after,
    start_from_home,
    wait_agent_state,
)
from tests.support.scripted_llm import ScriptItem, tool_call

pytestmark = pytest.mark.docker

# Closing a session waits for its agent session to wind down (server-api.md §8.5).
STOP_S = 120.0
# The agent settles here once a restarted loop is up (a fresh or a restored state).
SETTLED = re.compile(r"^(awaiting_user_input|finished)$")


def bash(command: str) -> ScriptItem:
    return tool_call("execute_bash", {"command": command, "security_risk": "LOW"})


def finish(message: str) -> ScriptItem:
    return tool_call("finish", {"message": message})


def status_of(server: E2EServer, conversation_id: str) -> str:
    response = server.api.get(f"/api/conversations/{conversation_id}")
    assert response.status_code == 200, response.text
    return str(response.json()["status"])


def web_hosts(server: E2EServer, conversation_id: str, live: bool = False) -> dict[str, int]:
    response = server.api.get(
        f"/api/conversations/{conversation_id}/web-hosts", params={"live": "true"} if live else {}
    )
    assert response.status_code == 200, response.text
    return dict(response.json()["hosts"])


def finish_with(ui: BrowserPage, text: str) -> Locator:
    return ui.page.locator('[data-testid="event-finish"]', has_text=text)


def assert_no_duplicates(ui: BrowserPage) -> None:
    rendered = rendered_event_ids(ui)
    assert len(set(rendered)) == len(rendered), f"events shown twice: {rendered}"
    for ids in ui.socket_event_ids:
        assert len(set(ids)) == len(ids), f"a socket delivered an event twice: {ids}"


def expect_calm_stopped_state(ui: BrowserPage) -> None:
    page = ui.page
    expect(page.get_by_test_id("agent-status")).to_have_attribute(
        "data-state", "stopped", timeout=STOP_S * 1000
    )
    line = page.get_by_test_id("status-line")
    expect(line).to_contain_text("Stopped")
    expect(line).to_have_class(re.compile(r"\bstatus-line--info\b"))
    expect(line).to_have_attribute("role", "status")
    expect(page.get_by_text(re.compile("disconnected", re.IGNORECASE))).to_have_count(0)
    expect(page.get_by_test_id("conversation-start")).to_be_enabled()
    expect(page.get_by_test_id("conversation-stop")).to_have_count(0)


def test_stop_then_start_from_the_conversation_page(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    tag = llm_router.script(
        "stop-page", [finish("First answer."), finish("Second answer, after the restart.")]
    )
    conversation_id = start_from_home(ui, f"{tag} Answer me twice.")
    page = ui.page
    wait_agent_state(ui, "finished")
    expect(finish_with(ui, "First answer.")).to_be_visible()

    # Stop: a calm stopped state, and the server agrees; the page does not start it again.
    page.get_by_test_id("conversation-stop").click()
    expect_calm_stopped_state(ui)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "stopped-conversation-page.png"))
    assert status_of(configured, conversation_id) == "STOPPED"
    expect(page.get_by_test_id("send-button")).to_be_disabled()
    expect(finish_with(ui, "First answer.")).to_be_visible()  # the history stays
    sockets_before_start = len(ui.socket_urls)
    held = max(rendered_event_ids(ui))

    # Start: the socket comes back, resuming after the last event held.
    page.get_by_test_id("conversation-start").click()
    expect(page.get_by_test_id("agent-status")).to_have_attribute(
        "data-state", SETTLED, timeout=SANDBOX_START_S * 1000
    )
    expect(page.get_by_test_id("conversation-stop")).to_be_enabled()
    assert status_of(configured, conversation_id) == "RUNNING"
    assert len(ui.socket_urls) > sockets_before_start
    assert socket_resumed_after(ui) >= held

    # The chat carries on.
    send_chat(ui, "One more, please.")
    expect(finish_with(ui, "Second answer, after the restart.")).to_be_visible(timeout=60_000)
    wait_agent_state(ui, "finished", timeout=60)
    expect(finish_with(ui, "First answer.")).to_have_count(1)
    assert_no_duplicates(ui)
    assert llm_router.remaining("stop-page") == 0 and "stop-page" not in llm_router.unscripted
    assert ui.page_errors == []


def test_stop_then_start_from_the_conversation_list(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    tag = llm_router.script(
        "stop-card", [finish("Done once."), finish("Done again, after a start from the list.")]
    )
    conversation_id = start_from_home(ui, f"{tag} Say done.")
    page = ui.page
    wait_agent_state(ui, "finished")

    ui.goto("/")
    card = page.locator(
        f'[data-testid="conversation-card"][data-conversation-id="{conversation_id}"]'
    )
    pill = card.get_by_test_id("conversation-status")
    expect(pill).to_have_attribute("data-status", "RUNNING")
    card.get_by_test_id("conversation-stop").click()
    expect(pill).to_have_attribute("data-status", "STOPPED", timeout=STOP_S * 1000)
    assert status_of(configured, conversation_id) == "STOPPED"
    expect(card.get_by_test_id("conversation-stop")).to_have_count(0)

    card.get_by_test_id("conversation-start").click()
    # The card follows the start until the loop runs.
    expect(pill).to_have_attribute("data-status", "RUNNING", timeout=SANDBOX_START_S * 1000)
    assert status_of(configured, conversation_id) == "RUNNING"
    expect(card.get_by_test_id("conversation-stop")).to_be_enabled()

    # Opened, the conversation is live and answers.
    card.get_by_test_id("conversation-title").click()
    expect(page.get_by_test_id("agent-status")).to_have_attribute(
        "data-state", SETTLED, timeout=60_000
    )
    send_chat(ui, "Again.")
    expect(finish_with(ui, "Done again, after a start from the list.")).to_be_visible(
        timeout=60_000
    )
    assert_no_duplicates(ui)
    assert llm_router.remaining("stop-card") == 0 and "stop-card" not in llm_router.unscripted
    assert ui.page_errors == []


def test_apps_tab_shows_a_port_only_once_something_listens(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    serve = "cd /tmp && (nohup python3 -m http.server ${APP_PORT_1:?} > /dev/null 2>&1 &)"
    tag = llm_router.script(
        "apps",
        [finish("Nothing served yet."), bash(serve), finish("A server listens on the app port.")],
    )
    conversation_id = start_from_home(ui, f"{tag} Serve something when asked.")
    page = ui.page
    wait_agent_state(ui, "finished")

    # Two reserved ports, nothing listening: the hint names them, no app is listed.
    reserved = web_hosts(configured, conversation_id)
    assert len(reserved) == 2, reserved
    assert web_hosts(configured, conversation_id, live=True) == {}
    page.get_by_test_id("tab-apps").click()
    hint = page.get_by_test_id("served-apps-hint")
    expect(hint).to_be_visible()
    for port in reserved.values():
        expect(hint).to_contain_text(str(port))
    expect(page.get_by_test_id("served-app-link")).to_have_count(0)

    # The agent starts a web server on the first app port: that port alone shows up.
    send_chat(ui, "Now serve /tmp on your first app port.")
    wait_agent_state(ui, "finished", timeout=60)
    expect(finish_with(ui, "A server listens on the app port.")).to_be_visible()
    url, port = next(iter(reserved.items()))
    link = page.get_by_test_id("served-app-link")
    expect(link).to_have_count(1, timeout=30_000)
    expect(link).to_have_text(url)
    expect(hint).to_have_count(0)
    assert web_hosts(configured, conversation_id, live=True) == {url: port}
    # The reference's route still lists every reserved port.
    assert web_hosts(configured, conversation_id) == reserved

    page.get_by_test_id("served-app-preview").click()
    frame = page.frame_locator('[data-testid="served-app-frame"]')
    expect(frame.locator("body")).to_contain_text("Directory listing", timeout=30_000)
    assert llm_router.remaining("apps") == 0 and "apps" not in llm_router.unscripted
    assert ui.page_errors == []
