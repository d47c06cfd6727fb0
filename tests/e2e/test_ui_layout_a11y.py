"""The main pages in real Chromium: no serious accessibility violations (axe-core, from npm),
the mobile layout (chat first, the workspace a sheet that slides up), and the screenshots the
README shows: written to ``docs/ui/`` when ``UPDATE_SCREENSHOTS=1`` (so a test run leaves the
checkout as it found it), else next to the other browser artifacts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import (
    ARTIFACTS,
    FRONTEND,
    REPO_ROOT,
    BrowserPage,
    E2EServer,
    LLMRouter,
    start_from_home,
    wait_agent_state,
)
from tests.e2e.test_ui_navigation import bash, finish, release, wait_for_release

pytestmark = pytest.mark.docker

AXE = FRONTEND / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = (
    REPO_ROOT / "docs" / "ui" if os.environ.get("UPDATE_SCREENSHOTS") == "1" else ARTIFACTS / "ui"
)
DESKTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}

_AXE_RUN = """
async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))}));
}
"""


def serious_violations(page: Page) -> list[dict[str, Any]]:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci` in frontend/")
    page.add_script_tag(path=str(AXE))
    result: list[dict[str, Any]] = page.evaluate(_AXE_RUN)
    return result


def shoot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def in_viewport(page: Page, test_id: str) -> bool:
    box = page.get_by_test_id(test_id).bounding_box()
    size = page.viewport_size
    assert size is not None
    return box is not None and box["y"] < size["height"] and box["y"] + box["height"] > 0


@pytest.fixture
def desktop(ui: BrowserPage) -> BrowserPage:
    ui.page.set_viewport_size(DESKTOP)
    return ui


def test_main_pages_accessible_mobile_layout_and_screenshots(
    desktop: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    ui = desktop
    page = ui.page
    command = wait_for_release("go-shot")
    tag = llm_router.script(
        "layout", [bash(command), finish("The page tour is over; every screen was checked.")]
    )
    conversation_id = start_from_home(ui, f"{tag} Wait for go-shot, then finish.")
    wait_agent_state(ui, "running")
    expect(
        page.locator('[data-testid="event-run"][data-event-kind="action"]', has_text="go-shot")
    ).to_be_visible(timeout=60_000)

    checked: dict[str, list[dict[str, Any]]] = {}

    # The overview while the agent works.
    page.get_by_test_id("nav-overview").click()
    row = page.locator(f'[data-testid="overview-row"][data-conversation-id="{conversation_id}"]')
    expect(row).to_have_attribute("data-state", "running", timeout=30_000)
    expect(row.get_by_test_id("overview-last-action")).to_contain_text("go-shot")
    checked["overview"] = serious_violations(page)
    shoot(page, "overview")

    # The conversation, finished, with its menu open.
    row.get_by_test_id("overview-open").click()
    release(configured, conversation_id, "go-shot")
    wait_agent_state(ui, "finished", timeout=60)
    checked["conversation"] = serious_violations(page)
    shoot(page, "conversation")
    page.get_by_test_id("conversation-menu-button").click()
    expect(page.get_by_test_id("conversation-menu")).to_be_visible()
    checked["conversation menu"] = serious_violations(page)
    shoot(page, "conversation-menu")
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("conversation-menu")).to_have_count(0)

    # Home and settings.
    page.get_by_test_id("nav-home").click()
    expect(page.get_by_test_id("conversation-list")).to_be_visible()
    expect(page.get_by_test_id("conversation-card").first).to_be_visible()
    checked["home"] = serious_violations(page)
    shoot(page, "home")
    page.get_by_test_id("nav-settings").click()
    expect(page.get_by_test_id("settings-model")).to_be_visible()
    checked["settings"] = serious_violations(page)
    shoot(page, "settings")

    # A phone: the chat first, the workspace a sheet that slides up over it.
    page.set_viewport_size(PHONE)
    ui.goto(f"/conversations/{conversation_id}")
    wait_agent_state(ui, "finished", timeout=60)
    expect(page.get_by_test_id("chat-input")).to_be_visible()
    expect(page.get_by_test_id("event-finish")).to_be_in_viewport()
    expect(page.get_by_test_id("sidebar")).to_have_count(0)  # closed by default on a phone
    expect(page.locator(".workspace-panel")).to_be_hidden()
    toggle = page.get_by_test_id("workspace-toggle")
    expect(toggle).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    checked["phone conversation"] = serious_violations(page)
    shoot(page, "mobile-conversation")

    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(page.locator(".workspace-panel")).to_be_visible()
    expect(page.get_by_test_id("tab-files")).to_be_in_viewport()
    page.get_by_test_id("tab-files").click()
    expect(page.get_by_test_id("file-explorer")).to_be_visible()
    expect(page.locator('[data-testid="file-tree-file"][data-path="go-shot"]')).to_be_visible()
    shoot(page, "mobile-workspace")
    toggle.click()
    expect(page.locator(".workspace-panel")).to_be_hidden()

    # The sidebar opens over the page and closes on navigation.
    page.get_by_test_id("sidebar-toggle").click()
    sidebar = page.get_by_test_id("sidebar")
    expect(sidebar).to_be_visible()
    expect(sidebar.locator(f'[data-conversation-id="{conversation_id}"]')).to_be_visible()
    checked["phone sidebar"] = serious_violations(page)
    shoot(page, "mobile-sidebar")
    sidebar.get_by_test_id("sidebar-new").click()
    expect(page.get_by_test_id("sidebar")).to_have_count(0)
    page.set_viewport_size(DESKTOP)

    failures = {name: found for name, found in checked.items() if found}
    assert not failures, f"serious accessibility violations: {failures}"
    assert ui.page_errors == []
    for name in ("home", "conversation", "conversation-menu", "overview", "settings"):
        assert Path(SCREENSHOTS / f"{name}.png").stat().st_size > 0
