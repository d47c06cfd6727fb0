"""The home page, the settings page and the conversation list, in real Chromium.

These scenarios need no sandbox: the conversations of the list scenario are seeded into the
server's file store the way the server itself saves them (the conversation store).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from uuid import uuid4

from playwright.sync_api import expect

from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.data_models.conversation_metadata import ConversationMetadata
from openhands.storage.local import LocalFileStore
from tests.e2e.conftest import (
    API_KEY,
    FAILED_RESOURCE_404,
    MODEL,
    BrowserPage,
    E2EServer,
    run_async,
)


def _forget_settings(server: E2EServer) -> None:
    """Back to the first-run state: no settings.json in the store."""
    (server.store / "settings.json").unlink(missing_ok=True)
    assert server.api.get("/api/settings").status_code == 404


def test_home_page_loads_without_console_errors(ui: BrowserPage, e2e_server: E2EServer) -> None:
    _forget_settings(e2e_server)
    ui.goto("/")
    page = ui.page
    expect(page).to_have_title("OpenHands")
    # First run: the settings 404 turns into the setup banner, and starting is disabled.
    expect(page.get_by_test_id("setup-banner")).to_be_visible()
    expect(page.get_by_test_id("setup-open-settings")).to_be_visible()
    expect(page.get_by_test_id("new-conversation-task")).to_be_disabled()
    expect(page.get_by_test_id("start-conversation")).to_be_disabled()
    expect(page.get_by_test_id("conversation-list")).to_be_attached()
    expect(page.get_by_role("status").filter(has_text="Loading…")).to_have_count(0)
    expect(page.get_by_test_id("nav-home")).to_be_visible()
    expect(page.get_by_test_id("nav-settings")).to_be_visible()
    page.wait_for_load_state("networkidle")

    assert ui.page_errors == []
    errors = ui.console_errors()
    # The one allowed error: Chrome's log line for the spec-mandated first-run 404.
    assert [(e.text, e.url) for e in errors] == [
        (FAILED_RESOURCE_404, f"{e2e_server.url}/api/settings")
    ], "\n".join(map(str, errors))


def test_settings_are_saved_and_persist_across_reload(
    ui: BrowserPage, e2e_server: E2EServer
) -> None:
    _forget_settings(e2e_server)
    ui.goto("/")
    page = ui.page
    page.get_by_test_id("nav-settings").click()
    expect(page).to_have_url(re.compile(r"/settings$"))
    expect(page.get_by_test_id("settings-first-run")).to_be_visible()
    expect(page.get_by_test_id("settings-api-key-status")).to_have_text("No key is set.")

    page.get_by_test_id("settings-model").fill(MODEL)
    page.get_by_test_id("settings-api-key").fill(API_KEY)
    page.get_by_test_id("settings-base-url").fill(e2e_server.llm_base_url)
    page.get_by_test_id("settings-save").click()
    expect(page.get_by_test_id("toasts")).to_contain_text("Settings saved")
    expect(page.get_by_test_id("settings-error")).to_have_count(0)

    # The server stored what the form sent (the key in clear text, as 0.59 does) ...
    stored = json.loads((e2e_server.store / "settings.json").read_text())
    assert stored["llm_model"] == MODEL
    assert stored["llm_api_key"] == API_KEY
    assert stored["llm_base_url"] == e2e_server.llm_base_url
    # ... and never hands the key back.
    served = e2e_server.api.get("/api/settings").json()
    assert served["llm_api_key"] is None and served["llm_api_key_set"] is True

    page.reload()
    expect(page.get_by_test_id("settings-model")).to_have_value(MODEL)
    expect(page.get_by_test_id("settings-base-url")).to_have_value(e2e_server.llm_base_url)
    api_key = page.get_by_test_id("settings-api-key")
    expect(api_key).to_have_value("")
    expect(api_key).to_have_attribute("placeholder", re.compile(r"^Set\b"))
    expect(page.get_by_test_id("settings-api-key-status")).to_have_text("A key is set.")
    expect(page.get_by_test_id("settings-first-run")).to_have_count(0)

    # With settings stored the home page lets the user start.
    page.get_by_test_id("nav-home").click()
    expect(page.get_by_test_id("setup-banner")).to_have_count(0)
    expect(page.get_by_test_id("new-conversation-task")).to_be_enabled()
    assert ui.page_errors == []


def _seed_conversation(server: E2EServer, title: str, age: timedelta) -> str:
    """Save a stopped conversation's metadata the way the server does."""
    conversation_id = uuid4().hex
    now = datetime.now(UTC)
    metadata = ConversationMetadata(
        conversation_id=conversation_id,
        title=title,
        trigger="gui",
        created_at=now - age,
        last_updated_at=now - age,
    )
    store = FileConversationStore(LocalFileStore(str(server.store)))
    run_async(lambda: store.save_metadata(metadata))
    return conversation_id


def test_rename_and_delete_conversations_from_the_home_list(
    ui: BrowserPage, configured: E2EServer
) -> None:
    keep = _seed_conversation(configured, "Conversation to rename", timedelta(minutes=2))
    drop = _seed_conversation(configured, "Conversation to delete", timedelta(minutes=1))
    ui.goto("/")
    page = ui.page
    keep_card = page.locator(f'[data-testid="conversation-card"][data-conversation-id="{keep}"]')
    drop_card = page.locator(f'[data-testid="conversation-card"][data-conversation-id="{drop}"]')
    expect(keep_card.get_by_test_id("conversation-title")).to_have_text("Conversation to rename")
    expect(drop_card.get_by_test_id("conversation-title")).to_have_text("Conversation to delete")
    expect(keep_card.get_by_test_id("conversation-status")).to_have_attribute(
        "data-status", "STOPPED"
    )
    expect(keep_card.get_by_test_id("conversation-status")).to_have_text("Stopped")

    # Rename.
    keep_card.get_by_test_id("rename-conversation").click()
    rename = keep_card.get_by_test_id("rename-input")
    expect(rename).to_be_focused()
    rename.fill("  Renamed by the e2e test  ")
    keep_card.get_by_test_id("rename-save").click()
    expect(keep_card.get_by_test_id("conversation-title")).to_have_text("Renamed by the e2e test")

    # Delete, through the confirmation step.
    drop_card.get_by_test_id("delete-conversation").click()
    drop_card.get_by_test_id("confirm-delete").click()
    expect(drop_card).to_have_count(0)

    # Both changes are on the server: a reload shows the same list.
    page.reload()
    expect(keep_card.get_by_test_id("conversation-title")).to_have_text("Renamed by the e2e test")
    expect(page.get_by_test_id("conversation-card").first).to_be_visible()
    expect(drop_card).to_have_count(0)
    assert configured.api.get(f"/api/conversations/{drop}").json() is None
    assert configured.api.get(f"/api/conversations/{keep}").json()["title"] == (
        "Renamed by the e2e test"
    )
    assert not (configured.store / "sessions" / drop).exists()
    assert ui.page_errors == []
