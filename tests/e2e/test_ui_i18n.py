"""The UI language chosen in Settings (issue 24 item 9), in real Chromium against a real
server: Japanese on Home, Settings, the sidebar and the overview, kept across a reload
(it is the stored ``language`` setting); Arabic turns the layout right to left with no
serious accessibility violation; English again at the end. The expected words are read
from the locale files, so the test checks the wiring, not a copy of the translations.
"""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.conftest import BrowserPage, E2EServer
from tests.e2e.i18n_support import assert_reads_right_to_left, words
from tests.e2e.test_ui_layout_a11y import DESKTOP, serious_violations


def choose_language(ui: BrowserPage, code: str) -> None:
    """Picks ``code`` on the Settings page and saves, as a user does."""
    ui.goto("/settings")
    ui.page.get_by_test_id("settings-language").select_option(code)
    ui.page.get_by_test_id("settings-save").click()
    expect(ui.page.locator("html")).to_have_attribute("lang", code)


def test_the_chosen_language_reaches_every_page_and_arabic_reads_right_to_left(
    ui: BrowserPage, in_english_afterwards: E2EServer
) -> None:
    page = ui.page
    page.set_viewport_size(DESKTOP)

    choose_language(ui, "ja")
    expect(page.locator("html")).to_have_attribute("dir", "ltr")
    expect(page.get_by_role("heading", level=1)).to_have_text(words("ja", "settings")["title"])
    expect(page.get_by_test_id("nav-settings")).to_contain_text(
        words("ja", "navigation")["settings"]
    )

    ui.goto("/")
    home = words("ja", "home")
    expect(page.locator("#new-conversation-title")).to_have_text(home["form"]["title"])
    expect(page.get_by_test_id("start-conversation")).to_have_attribute(
        "aria-label", home["form"]["startLabel"]
    )
    expect(page.get_by_test_id("sidebar")).to_have_attribute(
        "aria-label", words("ja", "navigation")["sidebar"]["label"]
    )
    # The stored setting, not the page's memory, holds the language.
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page.locator("#new-conversation-title")).to_have_text(home["form"]["title"])

    ui.goto("/agents")
    expect(page.get_by_role("heading", level=1)).to_have_text(words("ja", "overview")["title"])

    choose_language(ui, "ar")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.get_by_role("heading", level=1)).to_have_text(words("ar", "settings")["title"])
    assert serious_violations(page) == []
    ui.goto("/")
    expect(page.locator("#new-conversation-title")).to_have_text(
        words("ar", "home")["form"]["title"]
    )
    # Right to left: the sidebar, first in the reading order, sits right of the main area.
    assert_reads_right_to_left(page, "[data-testid=sidebar]", "main")
    assert serious_violations(page) == []

    choose_language(ui, "en")
    expect(page.locator("html")).to_have_attribute("dir", "ltr")
    expect(page.get_by_role("heading", level=1)).to_have_text(words("en", "settings")["title"])
    ui.goto("/")
    expect(page.locator("#new-conversation-title")).to_have_text(
        words("en", "home")["form"]["title"]
    )
    assert ui.page_errors == []
