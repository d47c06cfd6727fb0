import { act, fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { WorkspaceApi } from "../../api/workspace";
import { ChatInput } from "./ChatInput";

function setup(disabled = false) {
  const onSend = vi.fn(() => true);
  render(<ChatInput disabled={disabled} workspace={null} onSend={onSend} />);
  return { onSend, input: screen.getByTestId("chat-input") as HTMLTextAreaElement };
}

describe("ChatInput", () => {
  it("sends a message action on Enter and clears the box", async () => {
    const { onSend, input } = setup();
    fireEvent.change(input, { target: { value: "  fix the tests  " } });
    fireEvent.keyDown(input, { key: "Enter" });
    await vi.waitFor(() => expect(onSend).toHaveBeenCalledTimes(1));
    expect(onSend).toHaveBeenCalledWith({
      action: "message",
      args: { content: "fix the tests", image_urls: [], file_urls: [] },
    });
    await vi.waitFor(() => expect(input.value).toBe(""));
  });

  it("keeps Shift+Enter for a new line", () => {
    const { onSend, input } = setup();
    fireEvent.change(input, { target: { value: "line one" } });
    fireEvent.keyDown(input, { key: "Enter", shiftKey: true });
    expect(onSend).not.toHaveBeenCalled();
  });

  it("sends with the button and not when empty or disconnected", async () => {
    const { onSend, input } = setup();
    const button = screen.getByTestId("send-button") as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    fireEvent.change(input, { target: { value: "go" } });
    fireEvent.click(button);
    await vi.waitFor(() => expect(onSend).toHaveBeenCalledTimes(1));
  });

  it("disables sending while disconnected", () => {
    const { onSend, input } = setup(true);
    fireEvent.change(input, { target: { value: "go" } });
    fireEvent.keyDown(input, { key: "Enter" });
    expect(onSend).not.toHaveBeenCalled();
    expect((screen.getByTestId("send-button") as HTMLButtonElement).disabled).toBe(true);
  });

  it("leaves Ctrl/Cmd+Enter to the confirmation shortcut", () => {
    const { onSend, input } = setup();
    fireEvent.change(input, { target: { value: "go" } });
    fireEvent.keyDown(input, { key: "Enter", ctrlKey: true });
    fireEvent.keyDown(input, { key: "Enter", metaKey: true });
    expect(onSend).not.toHaveBeenCalled();
  });

  it("sends a pasted image as a data URL and can drop it before sending", async () => {
    const { onSend, input } = setup();
    const image = new File([new Uint8Array([137, 80, 78, 71])], "shot.png", { type: "image/png" });
    fireEvent.paste(input, { clipboardData: { files: [image], types: ["Files"] } });
    expect(screen.getAllByTestId("chat-attachment").map((li) => li.textContent)).toEqual(["shot.png×"]);
    fireEvent.click(screen.getByRole("button", { name: "Remove shot.png" }));
    expect(screen.queryByTestId("chat-attachment")).toBeNull();

    fireEvent.paste(input, { clipboardData: { files: [image], types: ["Files"] } });
    fireEvent.change(input, { target: { value: "look" } });
    fireEvent.click(screen.getByTestId("send-button"));
    await vi.waitFor(() => expect(onSend).toHaveBeenCalledTimes(1));
    expect(onSend).toHaveBeenCalledWith({
      action: "message",
      args: { content: "look", image_urls: ["data:image/png;base64,iVBORw=="], file_urls: [] },
    });
  });

  it("uploads a dropped file and sends its workspace path", async () => {
    const onSend = vi.fn(() => true);
    const uploadFiles = vi.fn(async () => ({ uploaded_files: ["/workspace/notes.txt"], skipped_files: [] }));
    const workspace = { uploadFiles } as unknown as WorkspaceApi;
    render(<ChatInput disabled={false} workspace={workspace} onSend={onSend} />);
    const file = new File(["hello"], "notes.txt", { type: "text/plain" });
    fireEvent.drop(screen.getByTestId("chat-form"), { dataTransfer: { files: [file], types: ["Files"] } });
    fireEvent.click(screen.getByTestId("send-button"));
    await vi.waitFor(() => expect(onSend).toHaveBeenCalledTimes(1));
    expect(uploadFiles).toHaveBeenCalledWith([file]);
    expect(onSend).toHaveBeenCalledWith({
      action: "message",
      args: { content: "\n\nNEW FILES ADDED: /workspace/notes.txt", image_urls: [], file_urls: ["/workspace/notes.txt"] },
    });
  });

  it("refuses an image too large for a message, saying why", () => {
    const { onSend, input } = setup();
    const huge = new File([new Uint8Array(4 * 1024 * 1024)], "huge.png", { type: "image/png" });
    act(() => {
      fireEvent.paste(input, { clipboardData: { files: [huge], types: ["Files"] } });
    });
    expect(screen.queryByTestId("chat-attachment")).toBeNull();
    expect(screen.getByTestId("chat-input-error").textContent).toMatch(/huge\.png \(4\.0 MB\).*at most 4\.0 MB/);
    expect(onSend).not.toHaveBeenCalled();
  });
});
