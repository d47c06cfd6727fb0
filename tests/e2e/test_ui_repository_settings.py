"""Repository context and the settings pages (issue 24 items 4 and 8) in real Chromium.

- the settings fields (budget, condenser size, search key, git identity, language, a model
  typed as a LiteLLM id) are saved, shown again after a reload and stored under the spec's
  names;
- an MCP server added on the settings page gives the next conversation's agent its tools
  (a real streamable-HTTP MCP server; the scripted LLM receives the tool list and the
  conversation menu lists it), and the repository bar's Create-PR button reaches the agent
  (the scripted LLM receives the request);
- a repository URL pasted in Home's picker is resolved by the server against a stand-in
  GitHub Enterprise (tests.support.git_forge) that the token's host names.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, expect

from openhands.integrations.service_types import ProviderType
from openhands.storage.conversation.file_conversation_store import FileConversationStore
from openhands.storage.local import LocalFileStore
from tests.e2e.conftest import (
    BrowserPage,
    E2EServer,
    LLMRouter,
    run_async,
    running_server,
    start_from_home,
    wait_agent_state,
    wait_until,
)
from tests.e2e.test_ui_layout_a11y import serious_violations
from tests.support.git_forge import ForgeState, GitForge
from tests.support.mcp_server import TEST_API_KEY, MCPTestServer
from tests.support.scripted_llm import ScriptedLLMServer, text
from tests.support.tls_certs import TestCA

# The UI's own translations: the test expects what a Japanese user is shown.
_LOCALES = Path(__file__).resolve().parents[2] / "frontend" / "src" / "i18n" / "locales"

FORGE_TOKEN = "ghp_uiPickerToken123"
OWNER, REPO = "acme", "widgets"


def test_settings_fields_round_trip(ui: BrowserPage, configured: E2EServer) -> None:
    ui.goto("/settings")
    page = ui.page
    model = page.get_by_test_id("settings-model")
    expect(model).to_have_value("openai/test-model")
    # The picker shows the stored model's provider; any LiteLLM id may still be typed.
    expect(page.get_by_test_id("settings-model-provider")).to_have_value("openai")
    page.get_by_test_id("settings-max-budget").fill("4.25")
    # The size applies to the default condenser, which the configured settings switch off.
    page.get_by_test_id("settings-condenser").check()
    page.get_by_test_id("settings-condenser-size").fill("80")
    page.get_by_test_id("settings-search-api-key").fill("tvly-e2e-search-key")
    page.get_by_test_id("settings-git-user-name").fill("Ada Lovelace")
    page.get_by_test_id("settings-git-user-email").fill("ada@example.com")
    page.get_by_test_id("settings-language").select_option("ja")
    page.get_by_test_id("settings-save").click()
    # Saving Japanese switches the page at once, the confirmation included.
    japanese = json.loads((_LOCALES / "ja" / "settings.json").read_text(encoding="utf-8"))
    expect(page.get_by_text(japanese["llm"]["saved"])).to_be_visible()

    stored = configured.api.get("/api/settings").json()
    assert {
        k: stored[k] for k in ("max_budget_per_task", "condenser_max_size", "git_user_name")
    } == {
        "max_budget_per_task": 4.25,
        "condenser_max_size": 80,
        "git_user_name": "Ada Lovelace",
    }
    assert stored["git_user_email"] == "ada@example.com"
    assert stored["language"] == "ja"
    assert stored["search_api_key_set"] is True
    assert stored["search_api_key"] is None  # never sent back
    assert stored["llm_api_key_set"] is True  # the LLM key was kept

    page.reload()
    expect(page.get_by_test_id("settings-max-budget")).to_have_value("4.25")
    expect(page.get_by_test_id("settings-condenser-size")).to_have_value("80")
    expect(page.get_by_test_id("settings-git-user-name")).to_have_value("Ada Lovelace")
    expect(page.get_by_test_id("settings-git-user-email")).to_have_value("ada@example.com")
    expect(page.get_by_test_id("settings-language")).to_have_value("ja")
    expect(page.get_by_test_id("settings-search-api-key")).to_have_value("")
    expect(page.get_by_test_id("settings-search-api-key-status")).to_have_text(
        japanese["storedKey"]["search"]["set"]
    )
    # The new parts of the page, the MCP form open, pass the accessibility check.
    page.get_by_test_id("add-mcp-server").click()
    expect(page.get_by_test_id("mcp-url")).to_be_visible()
    assert serious_violations(page) == []
    assert ui.page_errors == []


class _Recorder:
    """Scripted agent turns that keep what the LLM was sent."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tool_names: list[list[str]] = []
        self.user_texts: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Any:
        names = [t.get("function", {}).get("name", "") for t in body.get("tools") or []]
        # Every user message of the request: recalled microagent text may follow the user's own.
        texts: list[str] = []
        for message in body.get("messages", []):
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, list):
                content = " ".join(str(part.get("text", "")) for part in content)
            texts.append(str(content))
        with self.lock:
            self.tool_names.append(names)
            self.user_texts.append("\n".join(texts))
        return text("Noted.")


@pytest.mark.docker
@pytest.mark.timeout(900)
def test_mcp_server_from_settings_and_create_pr_reach_the_agent(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    page = ui.page
    with MCPTestServer("shttp", api_key=TEST_API_KEY) as mcp:
        try:
            ui.goto("/settings")
            page.get_by_test_id("add-mcp-server").click()
            page.get_by_test_id("mcp-kind").select_option("shttp")
            page.get_by_test_id("mcp-url").fill(mcp.url)
            page.get_by_test_id("mcp-apiKey").fill(TEST_API_KEY)
            page.get_by_test_id("save-mcp-server").click()
            expect(page.get_by_test_id("mcp-server-row")).to_contain_text(mcp.url)
            stored = configured.api.get("/api/settings").json()["mcp_config"]
            assert stored["shttp_servers"][0]["url"] == mcp.url

            recorder = _Recorder()
            tag = llm_router.script("ua-mcp-pr", [recorder, recorder])
            conversation_id = start_from_home(ui, f"{tag} Say hello.")
            wait_agent_state(ui, "awaiting_user_input")
            assert "add" in recorder.tool_names[0], recorder.tool_names[0]
            page.get_by_test_id("conversation-menu-button").click()
            expect(page.get_by_test_id("menu-tools")).to_contain_text("add")
            page.keyboard.press("Escape")

            # The conversation is given a repository the way the server stores one; the bar
            # reads it from the conversation's metadata.
            store = FileConversationStore(LocalFileStore(str(configured.store)))
            metadata = run_async(lambda: store.get_metadata(conversation_id))
            metadata.selected_repository = f"{OWNER}/{REPO}"
            metadata.selected_branch = "main"
            metadata.git_provider = ProviderType.GITHUB
            run_async(lambda: store.save_metadata(metadata))
            page.reload()
            bar = page.get_by_test_id("repository-bar")
            expect(bar.get_by_test_id("repository-link")).to_have_attribute(
                "href", f"https://github.com/{OWNER}/{REPO}"
            )
            expect(bar.get_by_test_id("branch-link")).to_have_attribute(
                "href", f"https://github.com/{OWNER}/{REPO}/tree/main"
            )
            wait_agent_state(ui, "awaiting_user_input")
            # The repository bar passes the accessibility check (the rest of the page is
            # test_ui_layout_a11y's).
            ours = ("repository-bar", "repository-link", "branch-link", '"git-')
            found = [v for v in serious_violations(page) if any(k in json.dumps(v) for k in ours)]
            assert found == [], json.dumps(found, indent=1)
            bar.get_by_test_id("git-create-pr").click()
            wait_until(
                lambda: len(recorder.user_texts) >= 2,
                120,
                "the scripted LLM never received the Create-PR request",
            )
            assert "open a pull request" in recorder.user_texts[1]
            assert "open a pull request" not in recorder.user_texts[0]
            assert llm_router.remaining("ua-mcp-pr") == 0
        finally:
            configured.store_settings()  # no MCP server left for the other tests


@pytest.fixture
def forge(tmp_path: Path) -> Iterator[tuple[GitForge, Path]]:
    ca = TestCA(tmp_path / "ca")
    issued = ca.server("forge", ["127.0.0.1"])
    with GitForge(tmp_path / "forge", issued, ForgeState(OWNER, REPO, FORGE_TOKEN)) as server:
        yield server, ca.cert


def test_pasted_repository_url_resolves_in_the_picker(
    browser_context: BrowserContext,
    frontend_build: Path,
    scripted_llm: ScriptedLLMServer,
    forge: tuple[GitForge, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server_forge, ca_file = forge
    # The server process trusts the stand-in forge's test CA.
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
    home = tmp_path / "server"
    home.mkdir()
    with running_server(home, frontend_build, scripted_llm.base_url) as server:
        server.store_settings()
        response = server.api.post(
            "/api/add-git-providers",
            json={
                "provider_tokens": {"github": {"token": FORGE_TOKEN, "host": server_forge.domain}}
            },
        )
        assert response.status_code == 200, response.text
        page = browser_context.new_page()
        try:
            page.goto(server.url + "/")
            box = page.get_by_test_id("repository-search")
            box.click()
            url = f"https://{server_forge.domain}/{OWNER}/{REPO}/tree/main/src"
            box.fill(url)
            option = page.get_by_test_id("repository-search-option")
            expect(option).to_have_count(1)
            expect(option).to_have_attribute("data-value", f"{OWNER}/{REPO}")
            assert serious_violations(page) == []  # the picker with its list open
            option.click()
            expect(page.get_by_test_id("repository-choice")).to_contain_text(f"{OWNER}/{REPO}")
            asked = [p for (_, _, p) in server_forge.state.api_requests]
            assert f"/api/v3/repos/{OWNER}/{REPO}" in asked, asked
        finally:
            page.close()
