"""The conversation page in the stored UI language (issue 24 item 9), in real Chromium with a
real sandbox and the scripted LLM: Japanese words on the status line, the chat box and the
workspace tabs; Arabic turns the page right to left, the chat on the right of the workspace.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import (
    BrowserPage,
    E2EServer,
    LLMRouter,
    start_from_home,
    wait_agent_state,
)
from tests.e2e.i18n_support import assert_reads_right_to_left, words
from tests.support.scripted_llm import tool_call

pytestmark = pytest.mark.docker


def test_conversation_page_speaks_japanese_then_arabic_right_to_left(
    ui: BrowserPage, in_english_afterwards: E2EServer, llm_router: LLMRouter
) -> None:
    server = in_english_afterwards
    server.store_settings(language="ja")
    tag = llm_router.script("i18n", [tool_call("finish", {"message": "Done: 完了"})])
    start_from_home(ui, f"{tag} Say you are done.")
    page = ui.page
    wait_agent_state(ui, "finished")

    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page.locator("html")).to_have_attribute("dir", "ltr")
    # The status line says the agent's state in Japanese.
    conversation = words("ja", "conversation")
    finished = words("ja", "status")["agentSentence"]["finished"]
    expect(page.get_by_test_id("status-line")).to_contain_text(finished)
    expect(page.get_by_test_id("chat-input")).to_have_attribute(
        "placeholder", conversation["chat"]["placeholder"]
    )
    expect(page.get_by_test_id("tab-terminal")).to_have_text(
        conversation["workspace"]["tabs"]["terminal"]
    )
    expect(page.get_by_test_id("tab-files")).to_have_text(
        conversation["workspace"]["tabs"]["files"]
    )
    expect(page.get_by_test_id("send-button")).to_have_attribute(
        "aria-label", conversation["chat"]["sendLabel"]
    )
    # The agent's own words are shown as sent, never translated.
    expect(page.get_by_test_id("event-finish")).to_contain_text("Done: 完了")

    server.store_settings(language="ar")
    page.reload()
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("html")).to_have_attribute("lang", "ar")
    arabic = words("ar", "conversation")
    expect(page.get_by_test_id("tab-terminal")).to_have_text(
        arabic["workspace"]["tabs"]["terminal"]
    )
    expect(page.get_by_test_id("status-line")).to_contain_text(
        words("ar", "status")["agentSentence"]["finished"]
    )
    expect(page.get_by_test_id("chat-input")).to_have_attribute(
        "placeholder", arabic["chat"]["placeholder"]
    )
    # Right to left: the chat (first in the DOM) sits to the right of the workspace panel.
    assert_reads_right_to_left(page, ".chat-panel", ".workspace-panel")
    expect(page.get_by_test_id("event-finish")).to_be_visible()
    assert page.evaluate("getComputedStyle(document.body).direction") == "rtl"
    assert ui.page_errors == []
