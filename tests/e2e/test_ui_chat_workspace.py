"""The chat box and the workspace panel in real Chromium, against a real sandbox and the
scripted LLM: a pasted image reaches the LLM, a dropped file lands in the workspace, an
oversize image is refused before sending, code in the agent's answer is coloured, confirmation
works from the keyboard with a high-risk warning, and the workspace panel (resized, hidden,
its last tab) stays as the user left it across a reload, lists every changed file's diff and
shows the IPython cells the agent ran.
"""

from __future__ import annotations

import base64
import json
import threading
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import (
    BrowserPage,
    E2EServer,
    LLMRouter,
    send_chat,
    start_from_home,
    wait_agent_state,
    wait_until,
)
from tests.e2e.test_ui_layout_a11y import serious_violations
from tests.support.scripted_llm import ScriptItem, text, tool_call

pytestmark = pytest.mark.docker

# A 1x1 PNG.
PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
# LiteLLM knows this model takes images, so the agent sends them on (test-model would not).
VISION_MODEL = "openai/gpt-4o"

# Hands files to the page as a paste on the chat box or a drop on the chat form, the way
# the browser does for a screenshot from the clipboard or a file dragged from the desktop.
_GIVE_FILES = """
([how, files]) => {
  const transfer = new DataTransfer();
  for (const f of files) {
    const bytes = f.b64 !== null
      ? Uint8Array.from(atob(f.b64), c => c.charCodeAt(0))
      : new Uint8Array(f.size);
    transfer.items.add(new File([bytes], f.name, {type: f.type}));
  }
  if (how === 'paste') {
    const box = document.querySelector('[data-testid="chat-input"]');
    box.dispatchEvent(new ClipboardEvent('paste', {clipboardData: transfer, bubbles: true, cancelable: true}));
  } else {
    const form = document.querySelector('[data-testid="chat-form"]');
    form.dispatchEvent(new DragEvent('dragover', {dataTransfer: transfer, bubbles: true, cancelable: true}));
    form.dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true, cancelable: true}));
  }
}
"""


def give_files(page: Page, how: str, files: list[dict[str, Any]]) -> None:
    page.evaluate(_GIVE_FILES, [how, files])


def bash(command: str, risk: str = "LOW") -> ScriptItem:
    return tool_call("execute_bash", {"command": command, "security_risk": risk})


def finish(message: str) -> ScriptItem:
    return tool_call("finish", {"message": message})


class Recorder:
    """A script entry that keeps the LLM request it answers."""

    def __init__(self, reply: ScriptItem) -> None:
        self.reply = reply
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> ScriptItem:
        with self._lock:
            self.bodies.append(body)
        return self.reply


def _height(page: Page, test_id: str) -> float:
    box = page.get_by_test_id(test_id).bounding_box()
    assert box is not None
    return float(box["height"])


def user_messages(server: E2EServer, conversation_id: str) -> list[dict[str, Any]]:
    return [
        e
        for e in server.events(conversation_id)
        if e.get("source") == "user" and e.get("action") == "message"
    ]


def test_paste_drop_oversize_echo_and_highlighting(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    server = configured
    server.store_settings(llm_model=VISION_MODEL)
    page = ui.page
    seen_image = Recorder(text("```python\ndef answer():\n    return 42\n```"))
    seen_file = Recorder(text("I have read the notes."))
    tag = llm_router.script("attach", [text("Ready for your files."), seen_image, seen_file])
    conversation_id = start_from_home(ui, f"{tag} I will send you a screenshot and a file.")
    wait_agent_state(ui, "awaiting_user_input")

    # Too large: refused in the browser with the reason, nothing attached, nothing sent.
    give_files(
        page, "paste", [{"name": "huge.png", "type": "image/png", "b64": None, "size": 5 << 20}]
    )
    error = page.get_by_test_id("chat-input-error")
    expect(error).to_contain_text("Too large to send: huge.png (5.0 MB)")
    expect(error).to_contain_text("at most 4.0 MB per message")
    expect(page.get_by_test_id("chat-attachment")).to_have_count(0)

    # A pasted screenshot: a thumbnail, then sent in image_urls and read by the LLM.
    give_files(page, "paste", [{"name": "shot.png", "type": "image/png", "b64": PNG_B64}])
    chip = page.get_by_test_id("chat-attachment")
    expect(chip).to_have_count(1)
    expect(chip.locator("img.chat-input__thumb")).to_be_visible()
    send_chat(ui, "Here is the screenshot.")
    wait_until(lambda: len(seen_image.bodies) == 1, 60, "the LLM never got the next turn")
    assert f"data:image/png;base64,{PNG_B64}" in json.dumps(seen_image.bodies[0]["messages"])
    # Shown once: the echo gave way to the server's own event.
    sent = page.locator('[data-testid="event-message"]', has_text="Here is the screenshot.")
    expect(sent).to_have_count(1)
    expect(sent.locator("img.attachment-image")).to_have_count(1)
    expect(page.get_by_test_id("message-echo")).to_have_count(0)

    # The agent's answer: a fenced Python block, coloured.
    wait_agent_state(ui, "awaiting_user_input", timeout=60)
    keyword = page.get_by_test_id("event-list").locator("code.hljs .hljs-keyword").first
    expect(keyword).to_have_text("def")

    # A dropped file goes to the workspace through the upload route; its path is sent.
    content = "notes dropped on the chat\n"
    give_files(
        page,
        "drop",
        [
            {
                "name": "dropped-notes.txt",
                "type": "text/plain",
                "b64": base64.b64encode(content.encode()).decode(),
            }
        ],
    )
    expect(page.get_by_test_id("chat-attachment")).to_have_text("dropped-notes.txt×")

    # The box grows with its text.
    box = page.get_by_test_id("chat-input")
    one_line = _height(page, "chat-input")
    box.fill("a\nb\nc\nd\ne")
    assert _height(page, "chat-input") > one_line * 1.8
    send_chat(ui, "And the notes.")
    wait_until(lambda: len(seen_file.bodies) == 1, 60, "the LLM never got the notes turn")
    assert "dropped-notes.txt" in server.list_files(conversation_id)
    # The path is in file_urls and, for the agent, named in the text (as 0.59 sends it).
    notes = [
        m
        for m in user_messages(server, conversation_id)
        if m["args"]["content"].startswith("And the notes.")
    ]
    assert [m["args"] for m in notes] == [
        {
            **notes[0]["args"],
            "content": "And the notes.\n\nNEW FILES ADDED: /workspace/dropped-notes.txt",
            "file_urls": ["/workspace/dropped-notes.txt"],
        }
    ]
    assert "/workspace/dropped-notes.txt" in json.dumps(seen_file.bodies[0]["messages"])
    shown = page.locator('[data-testid="event-message"]', has_text="And the notes.")
    expect(shown.locator(".markdown")).to_have_text("And the notes.")
    expect(shown.locator("code.path")).to_have_text("/workspace/dropped-notes.txt")

    assert serious_violations(page) == []
    assert llm_router.remaining("attach") == 0 and "attach" not in llm_router.unscripted
    assert ui.page_errors == []


def test_confirmation_from_the_keyboard_with_a_high_risk_warning(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    server = configured
    # The LLM analyser takes the risk the model states; with it only HIGH risk asks.
    server.store_settings(confirmation_mode=True, security_analyzer="llm")
    page = ui.page
    tag = llm_router.script(
        "keys",
        [
            bash("touch /workspace/refused.txt", risk="HIGH"),
            bash("touch /workspace/accepted.txt", risk="HIGH"),
            finish("accepted.txt is there."),
        ],
    )
    conversation_id = start_from_home(ui, f"{tag} Create two marker files.")

    wait_agent_state(ui, "awaiting_user_confirmation")
    bar = page.get_by_test_id("confirmation-bar")
    expect(bar).to_contain_text("refused.txt")
    expect(page.get_by_test_id("high-risk-banner")).to_contain_text("high risk")
    assert serious_violations(page) == []
    # Ctrl+Shift+Backspace rejects, wherever the focus is.
    page.keyboard.press("Control+Shift+Backspace")
    expect(page.get_by_test_id("event-user_rejected")).to_be_visible(timeout=30_000)
    wait_agent_state(ui, "awaiting_user_input", timeout=30)
    expect(bar).to_have_count(0)

    send_chat(ui, "Then the other one.")
    wait_agent_state(ui, "awaiting_user_confirmation", timeout=60)
    expect(bar).to_contain_text("accepted.txt")
    expect(page.get_by_test_id("high-risk-banner")).to_be_visible()
    # Ctrl+Enter confirms, even from the chat box (where Enter alone sends).
    page.get_by_test_id("chat-input").focus()
    page.keyboard.press("Control+Enter")
    wait_agent_state(ui, "finished", timeout=60)
    files = server.list_files(conversation_id)
    assert "accepted.txt" in files and "refused.txt" not in files
    assert len(user_messages(server, conversation_id)) == 2  # the task and the one chat line
    assert llm_router.remaining("keys") == 0 and "keys" not in llm_router.unscripted
    assert ui.page_errors == []


def _panel_width(page: Page) -> float:
    box = page.locator(".workspace-panel").bounding_box()
    assert box is not None
    return float(box["width"])


def test_workspace_panel_layout_diffs_and_jupyter(
    ui: BrowserPage, configured: E2EServer, llm_router: LLMRouter
) -> None:
    page = ui.page
    setup = (
        "cd /workspace && git init -q && printf 'one\\n' > kept.txt && printf 'two\\n' > gone.txt"
        " && git add . && git -c user.name=e2e -c user.email=e2e@example.com commit -qm base"
        # Pushed, so the changes are counted from the branch on origin (0.59's base).
        " && git init -q --bare /tmp/e2e-origin.git && git remote add origin /tmp/e2e-origin.git"
        " && git push -q -u origin HEAD"
        " && printf 'ONE\\n' > kept.txt && rm gone.txt && mkdir -p docs"
        " && printf 'new\\n' > docs/added.md"
    )
    tag = llm_router.script(
        "panel",
        [
            bash(setup),
            tool_call("execute_ipython_cell", {"code": "print(6 * 7)", "security_risk": "LOW"}),
            finish("Changed three files and ran a cell."),
        ],
    )
    start_from_home(ui, f"{tag} Change some files, then compute 6 * 7 in Python.")
    wait_agent_state(ui, "finished")

    # Every changed file's diff, in one scroll.
    page.get_by_test_id("tab-changes").click()
    files = page.get_by_test_id("git-diff-file")
    expect(files).to_have_count(3)
    paths = sorted(files.evaluate_all("nodes => nodes.map(n => n.dataset.path)"))
    assert paths == ["docs/added.md", "gone.txt", "kept.txt"]
    expect(page.get_by_test_id("git-diff").get_by_test_id("diff-view")).to_have_count(3)
    expect(files.filter(has_text="kept.txt").get_by_test_id("diff-view")).to_contain_text("ONE")

    # The IPython cell and its output, read-only.
    page.get_by_test_id("tab-jupyter").click()
    cell = page.get_by_test_id("jupyter-cell")
    expect(cell).to_have_count(1)
    expect(cell).to_contain_text("print(6 * 7)")
    expect(cell).to_contain_text("42")
    assert serious_violations(page) == []

    # Resize from the keyboard (two steps wider), then by dragging the handle.
    handle = page.get_by_test_id("workspace-resizer")
    start = _panel_width(page)
    handle.focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(handle).to_have_attribute("aria-valuenow", "65")
    assert _panel_width(page) > start
    box = handle.bounding_box()
    assert box is not None
    body = page.get_by_test_id("conversation-body").bounding_box()
    assert body is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    # To 40 % of the area from its right edge.
    page.mouse.move(body["x"] + body["width"] * 0.6, y, steps=5)
    page.mouse.up()
    expect(handle).to_have_attribute("aria-valuenow", "40")
    dragged = _panel_width(page)

    # Remembered across a reload: the width and the tab.
    page.reload()
    expect(page.get_by_test_id("tab-jupyter")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("workspace-resizer")).to_have_attribute("aria-valuenow", "40")
    assert abs(_panel_width(page) - dragged) < 2

    # Hidden, and still hidden after a reload; shown again at the same width.
    page.get_by_test_id("workspace-collapse").click()
    expect(page.locator(".workspace-panel")).to_be_hidden()
    page.reload()
    expect(page.get_by_test_id("conversation-page")).to_be_visible()
    expect(page.get_by_test_id("workspace-expand")).to_be_visible()
    expect(page.locator(".workspace-panel")).to_be_hidden()
    page.get_by_test_id("workspace-expand").click()
    expect(page.locator(".workspace-panel")).to_be_visible()
    expect(page.get_by_test_id("workspace-resizer")).to_have_attribute("aria-valuenow", "40")
    assert ui.page_errors == []
