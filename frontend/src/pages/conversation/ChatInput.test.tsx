import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
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
});
