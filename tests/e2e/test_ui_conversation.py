"""Conversations driven from the browser: CodeActAgent in a real Docker sandbox, its LLM the
scripted server (each scenario's replies are queued under the `[e2e:<tag>]` marker of its task).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import (
    BrowserPage,
    E2EServer,
    LLMRouter,
    command_output,
    rendered_event_ids,
    send_chat,
    socket_resumed_after,
    start_from_home,
    terminal_text,
    wait_agent_state,
    wait_until,
)
from tests.support.scripted_llm import ScriptItem, text, tool_call

pytestmark = pytest.mark.docker


def bash(command: str) -> ScriptItem:
    return tool_call("execute_bash", {"command": command, "security_risk": "LOW"})


def finish(message: str) -> ScriptItem:
    return tool_call("finish", {"message": message})


def run_action(ui: BrowserPage, command: str) -> Any:
    return ui.page.locator(
        '[data-testid="event-run"][data-event-kind="action"]', has_text=command
    ).last


def run_output(ui: BrowserPage, command: str) -> Any:
    return ui.page.locator(
        '[data-testid="event-run"][data-event-kind="observation"]', has_text=command
    ).last


def test_agent_runs_a_command_seen_in_chat_terminal_and_files(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    command = "echo hello-from-sandbox > /workspace/note.txt && cat /workspace/note.txt"
    tag = llm_router.script(
        "create", [bash(command), finish("note.txt now holds hello-from-sandbox.")]
    )
    task = f"{tag} Write hello-from-sandbox into /workspace/note.txt and show it."
    start_from_home(ui, task)
    page = ui.page
    wait_agent_state(ui, "finished")

    # Chat: the task, the command, its output (folded until opened) and the finish message.
    expect(page.locator('[data-testid="event-message"]', has_text=task)).to_be_visible()
    expect(run_action(ui, command)).to_contain_text(f"$ {command}")
    output = command_output(run_output(ui, command))
    expect(output).to_have_text(re.compile(r"^\s*hello-from-sandbox\s*$"))
    expect(page.get_by_test_id("event-finish")).to_contain_text("note.txt now holds")

    # Terminal tab: the same command and output, written to xterm.js.
    page.get_by_test_id("tab-terminal").click()
    expect(page.get_by_test_id("terminal")).to_be_visible()
    wait_until(
        lambda: command in terminal_text(ui) and "\nhello-from-sandbox" in terminal_text(ui),
        10,
        "the terminal does not show the command and its output",
    )

    # Files tab: note.txt is listed and opens with its content.
    page.get_by_test_id("tab-files").click()
    explorer = page.get_by_test_id("file-explorer")
    expect(explorer).to_be_visible()
    note = explorer.locator('[data-testid="file-tree-file"][data-path="note.txt"]')
    expect(note).to_be_visible()
    note.click()
    expect(page.get_by_test_id("file-viewer-content")).to_have_text(
        re.compile(r"^\s*hello-from-sandbox\s*$")
    )
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "finished")
    assert llm_router.remaining("create") == 0 and "create" not in llm_router.unscripted
    assert ui.page_errors == []


def test_pause_while_the_agent_works_then_resume_to_finish(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    """Pause during a slow command, resume before it ends: the agent carries on to the finish.

    (0.59 semantics, agent.md §8.3: a state change alone never triggers a step, so the resume
    must come while the command is still running; its output then drives the next step.)
    """
    command = "sleep 8 && echo woke-up"
    tag = llm_router.script("pause", [bash(command), finish("Resumed and finished.")])
    conversation_id = start_from_home(ui, f"{tag} Sleep a while, then say you woke up.")
    page = ui.page
    # The agent is at work: its command is running in the sandbox.
    wait_agent_state(ui, "running")
    expect(run_action(ui, command)).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("agent-status")).to_have_attribute("data-state", "running")
    page.get_by_test_id("pause-agent").click()
    wait_agent_state(ui, "paused", timeout=5)
    expect(page.get_by_test_id("pause-agent")).to_have_count(0)
    assert llm_router.remaining("pause") == 1  # the finish reply is still to come

    resume = page.get_by_test_id("resume-agent")
    expect(resume).to_be_enabled()
    resume.click()
    wait_agent_state(ui, "running", timeout=5)
    expect(run_output(ui, command)).to_be_visible(timeout=30_000)
    wait_agent_state(ui, "finished", timeout=60)
    expect(command_output(run_output(ui, command))).to_contain_text("woke-up")
    expect(page.get_by_test_id("event-finish")).to_contain_text("Resumed and finished.")
    assert llm_router.remaining("pause") == 0 and "pause" not in llm_router.unscripted
    states = [
        e["extras"]["agent_state"]
        for e in configured.events(conversation_id)
        if e.get("observation") == "agent_state_changed"
    ]
    paused_at = states.index("paused")
    assert states[paused_at + 1 :] == ["running", "finished"], states
    assert ui.page_errors == []


@pytest.fixture
def confirmation_mode(configured: E2EServer) -> Iterator[E2EServer]:
    yield configured
    configured.store_settings(confirmation_mode=False)


def _explorer_paths(ui: BrowserPage) -> list[str]:
    files = ui.page.get_by_test_id("file-explorer").get_by_test_id("file-tree-file")
    return [str(p) for p in files.evaluate_all("nodes => nodes.map(n => n.dataset.path)")]


def test_confirmation_mode_reject_then_confirm(
    ui: BrowserPage, confirmation_mode: E2EServer, llm_router: LLMRouter
) -> None:
    server = confirmation_mode
    page = ui.page
    # The user turns confirmation mode on in the settings page.
    ui.goto("/settings")
    toggle = page.get_by_test_id("settings-confirmation-mode")
    expect(toggle).not_to_be_checked()
    toggle.check()
    page.get_by_test_id("settings-save").click()
    expect(page.get_by_test_id("toasts")).to_contain_text("Settings saved")
    assert server.api.get("/api/settings").json()["confirmation_mode"] is True

    tag = llm_router.script(
        "confirm",
        [
            bash("touch /workspace/rejected.txt"),
            bash("touch /workspace/confirmed.txt"),
            finish("confirmed.txt is there."),
        ],
    )
    conversation_id = start_from_home(ui, f"{tag} Create a marker file.")

    # First proposal: rejected.
    wait_agent_state(ui, "awaiting_user_confirmation")
    bar = page.get_by_test_id("confirmation-bar")
    expect(bar).to_contain_text("touch /workspace/rejected.txt")
    page.get_by_test_id("reject-action").click()
    expect(page.get_by_test_id("event-user_rejected")).to_contain_text("rejected by the user")
    wait_agent_state(ui, "awaiting_user_input", timeout=30)
    expect(bar).to_have_count(0)

    page.get_by_test_id("tab-files").click()
    expect(page.get_by_test_id("file-explorer")).to_be_visible()
    expect(page.get_by_test_id("file-explorer")).not_to_contain_text("Loading")
    assert "rejected.txt" not in _explorer_paths(ui)
    assert "rejected.txt" not in server.list_files(conversation_id)

    # Next step: the user asks again; this proposal is confirmed and runs.
    send_chat(ui, "Create confirmed.txt instead.")
    wait_agent_state(ui, "awaiting_user_confirmation", timeout=60)
    expect(bar).to_contain_text("touch /workspace/confirmed.txt")
    page.get_by_test_id("confirm-action").click()
    wait_agent_state(ui, "finished", timeout=60)
    page.get_by_test_id("refresh-files").click()
    confirmed = page.locator('[data-testid="file-tree-file"][data-path="confirmed.txt"]')
    expect(confirmed).to_be_visible()
    assert "rejected.txt" not in _explorer_paths(ui)
    files = server.list_files(conversation_id)
    assert "confirmed.txt" in files and "rejected.txt" not in files
    assert llm_router.remaining("confirm") == 0 and "confirm" not in llm_router.unscripted
    assert ui.page_errors == []


def _settled_ids(ui: BrowserPage, quiet: float = 1.0, timeout: float = 20) -> list[int]:
    """The rendered event ids once they stopped changing for ``quiet`` seconds."""
    deadline = time.monotonic() + timeout
    last = rendered_event_ids(ui)
    since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.2)
        now = rendered_event_ids(ui)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return now
    raise AssertionError(f"the event list kept changing: {last}")


def test_reload_mid_conversation_restores_the_history(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    tag = llm_router.script(
        "reload",
        [
            bash("echo first-step"),
            text("The first step is done. Shall I finish?"),
            finish("Finished after the reload."),
        ],
    )
    start_from_home(ui, f"{tag} Do the first step, then wait for me.")
    page = ui.page
    wait_agent_state(ui, "awaiting_user_input")
    expect(
        page.locator('[data-testid="event-message"]', has_text="Shall I finish?")
    ).to_be_visible()
    before = _settled_ids(ui)
    assert len(before) >= 4, before  # task, command, output, reply
    assert len(set(before)) == len(before), f"duplicates before the reload: {before}"

    page.reload()
    wait_agent_state(ui, "awaiting_user_input")
    wait_until(lambda: len(rendered_event_ids(ui)) >= len(before), 20, "history not restored")
    after = _settled_ids(ui)
    assert after == before
    # The page read the whole stored history over REST and told the socket where it ended:
    # the server replayed only what came after it, each event once.
    replayed = ui.socket_event_ids[-1]
    held = socket_resumed_after(ui)
    assert held >= max(before), (held, before)
    assert len(replayed) == len(set(replayed)), replayed
    assert all(i > held for i in replayed), (held, replayed)
    # The terminal is rebuilt from the same history.
    wait_until(lambda: "first-step" in terminal_text(ui), 10, "terminal history not restored")

    # The restored conversation goes on, still without duplicates.
    send_chat(ui, "Yes, finish.")
    wait_agent_state(ui, "finished", timeout=60)
    final = _settled_ids(ui)
    assert final[: len(before)] == before and len(final) > len(before)
    assert len(set(final)) == len(final), f"duplicates: {final}"
    for delivered in ui.socket_event_ids:
        assert len(delivered) == len(set(delivered)), f"an event came twice: {delivered}"
    assert llm_router.remaining("reload") == 0 and "reload" not in llm_router.unscripted
    assert ui.page_errors == []


def test_user_runs_a_command_in_the_terminal(ui: BrowserPage, configured: E2EServer) -> None:
    start_from_home(ui, "")  # no task: the agent waits, the user works in the terminal
    page = ui.page
    wait_agent_state(ui, "awaiting_user_input")
    page.get_by_test_id("tab-terminal").click()
    prompt = page.get_by_test_id("terminal-input")
    prompt.fill("echo from-the-user-$((6*7)) && pwd")
    prompt.press("Enter")
    expect(prompt).to_have_value("")
    wait_until(
        lambda: "from-the-user-42" in terminal_text(ui), 30, "the command's output never showed"
    )
    screen = terminal_text(ui)
    assert "echo from-the-user-$((6*7)) && pwd" in screen
    assert "/workspace" in screen
    # The command and its output are in the chat too, as the user's own command.
    expect(run_output(ui, "from-the-user")).to_be_visible()
    assert ui.page_errors == []


def test_agent_browses_a_page_served_in_the_sandbox(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    page_html = (
        "<html><head><title>Sandbox page</title></head><body><h1>Served inside</h1></body></html>"
    )
    serve = (
        "mkdir -p /workspace/site && cd /workspace/site && "
        f"printf '%s' '{page_html}' > index.html && "
        "(nohup python3 -m http.server 8011 > /dev/null 2>&1 &) && sleep 1 && cd /workspace"
    )
    url = "http://localhost:8011/"
    tag = llm_router.script(
        "browse",
        [
            bash(serve),
            tool_call("browser", {"code": f'goto("{url}")', "security_risk": "LOW"}),
            finish("The page says: Served inside."),
        ],
    )
    start_from_home(ui, f"{tag} Serve a page in the sandbox and look at it.")
    page = ui.page
    wait_agent_state(ui, "finished")

    # Chat: the browser's result for the URL, without an error.
    visited = page.locator(
        '[data-testid="event-browse"][data-event-kind="observation"]', has_text=f"Visited {url}"
    ).last
    expect(visited).to_be_visible()
    expect(visited.locator(".pill--error")).to_have_count(0)

    # Browser tab: the screenshot the sandbox's Chromium took, captioned with the URL.
    page.get_by_test_id("tab-browser").click()
    shot = page.get_by_test_id("browser-screenshot")
    expect(shot).to_be_visible()
    expect(shot.locator("figcaption")).to_have_text(url)
    src = shot.locator("img").get_attribute("src") or ""
    assert src.startswith("data:image/png;base64,") and len(src) > 1000
    natural_width = shot.locator("img").evaluate("img => img.naturalWidth")
    assert natural_width > 100  # a real, decodable image
    assert llm_router.remaining("browse") == 0 and "browse" not in llm_router.unscripted
    assert ui.page_errors == []
