import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { applyLanguage } from "../../i18n";
import { initialConversationState } from "../../state/conversationReducer";
import { ChatInput } from "./ChatInput";
import { ConfirmationBar } from "./ConfirmationBar";
import { WorkspacePanel } from "./workspace/WorkspacePanel";

vi.mock("./workspace/TerminalTab", () => ({ default: () => <div data-testid="terminal" /> }));

afterEach(async () => {
  localStorage.clear();
  await act(() => applyLanguage("en"));
});

describe("the conversation page in another language", () => {
  it("words the chat box and the workspace tabs in Japanese, and back in English", async () => {
    render(
      <>
        <ChatInput disabled={false} workspace={null} onSend={() => true} />
        <WorkspacePanel workspace={null} state={initialConversationState} onSend={() => true} />
      </>,
    );
    expect(screen.getByTestId("tab-files").textContent).toBe("Files");
    await act(() => applyLanguage("ja"));
    expect(screen.getByTestId("chat-input").getAttribute("placeholder")).toBe(
      "エージェントへのメッセージ(Enter で送信、Shift+Enter で改行)",
    );
    expect(screen.getByTestId("tab-files").textContent).toBe("ファイル");
    expect(screen.getByTestId("send-button").getAttribute("aria-label")).toBe("メッセージを送信");
    await act(() => applyLanguage("en"));
    expect(screen.getByTestId("tab-files").textContent).toBe("Files");
  });

  it("puts the command into the sentence where the language wants it", async () => {
    await act(() => applyLanguage("ja"));
    const run = { id: 4, source: "agent", action: "run", args: { command: "ls -la", confirmation_state: "awaiting_confirmation" }, message: "", timestamp: "" };
    render(<ConfirmationBar events={[run as never]} disabled={false} onSend={() => true} />);
    expect(screen.getByTestId("confirmation-bar").textContent).toContain("実行: ls -la");
  });

  it("moves between tabs with the arrow the eye expects in Arabic", async () => {
    await act(() => applyLanguage("ar"));
    expect(document.documentElement.dir).toBe("rtl");
    render(<WorkspacePanel workspace={null} state={initialConversationState} onSend={() => true} />);
    expect(screen.getByTestId("tab-terminal").textContent).toBe("الطرفية");
    // Right to left, the next tab (Files) is on the left of Terminal.
    fireEvent.keyDown(screen.getByRole("tablist"), { key: "ArrowLeft" });
    expect(screen.getByTestId("tab-files").getAttribute("aria-selected")).toBe("true");
    fireEvent.keyDown(screen.getByRole("tablist"), { key: "ArrowRight" });
    expect(screen.getByTestId("tab-terminal").getAttribute("aria-selected")).toBe("true");
  });
});
