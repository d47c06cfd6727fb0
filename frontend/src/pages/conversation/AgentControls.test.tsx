import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { ACTION_FIXTURES } from "../../test/fixtures/events";
import { AgentControls } from "./AgentControls";
import { ConfirmationBar } from "./ConfirmationBar";

const change = (agent_state: string) => ({ action: "change_agent_state", args: { agent_state } });

describe("AgentControls", () => {
  it("pauses and stops a running agent", () => {
    const onSend = vi.fn(() => true);
    render(<AgentControls state="running" disabled={false} onSend={onSend} />);
    fireEvent.click(screen.getByTestId("pause-agent"));
    fireEvent.click(screen.getByTestId("stop-agent"));
    expect(onSend.mock.calls).toEqual([[change("paused")], [change("stopped")]]);
  });

  it("resumes a paused agent", () => {
    const onSend = vi.fn(() => true);
    render(<AgentControls state="paused" disabled={false} onSend={onSend} />);
    expect(screen.queryByTestId("pause-agent")).toBeNull();
    fireEvent.click(screen.getByTestId("resume-agent"));
    expect(onSend).toHaveBeenCalledWith(change("running"));
  });

  it("disables what does not apply", () => {
    render(<AgentControls state="finished" disabled={false} onSend={() => true} />);
    expect((screen.getByTestId("pause-agent") as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId("stop-agent") as HTMLButtonElement).disabled).toBe(true);
  });
});

function awaiting(risk?: number) {
  return {
    ...ACTION_FIXTURES.run,
    args: {
      ...ACTION_FIXTURES.run.args,
      confirmation_state: "awaiting_confirmation" as const,
      ...(risk === undefined ? {} : { security_risk: risk as 0 | 1 | 2 }),
    },
  };
}

describe("ConfirmationBar", () => {
  it("confirms the pending action once", () => {
    const onSend = vi.fn(() => true);
    render(<ConfirmationBar events={[awaiting()]} disabled={false} onSend={onSend} />);
    expect(screen.getByTestId("confirmation-bar").textContent).toContain("Run: python hello.py");
    fireEvent.click(screen.getByTestId("confirm-action"));
    // A second answer to the same action is not sent while the agent's state changes.
    fireEvent.click(screen.getByTestId("reject-action"));
    expect(onSend.mock.calls).toEqual([[change("user_confirmed")]]);
    expect((screen.getByTestId("reject-action") as HTMLButtonElement).disabled).toBe(true);
  });

  it("rejects the pending action", () => {
    const onSend = vi.fn(() => true);
    render(<ConfirmationBar events={[awaiting()]} disabled={false} onSend={onSend} />);
    fireEvent.click(screen.getByTestId("reject-action"));
    expect(onSend.mock.calls).toEqual([[change("user_rejected")]]);
  });

  it("answers Ctrl/Cmd+Enter and Ctrl/Cmd+Shift+Backspace from anywhere on the page", () => {
    const confirm = vi.fn(() => true);
    const { unmount } = render(<ConfirmationBar events={[awaiting()]} disabled={false} onSend={confirm} />);
    fireEvent.keyDown(document.body, { key: "Enter" });
    expect(confirm).not.toHaveBeenCalled();
    fireEvent.keyDown(document.body, { key: "Enter", metaKey: true });
    expect(confirm.mock.calls).toEqual([[change("user_confirmed")]]);
    unmount();

    const reject = vi.fn(() => true);
    render(<ConfirmationBar events={[awaiting()]} disabled={false} onSend={reject} />);
    fireEvent.keyDown(document.body, { key: "Backspace", ctrlKey: true });
    expect(reject).not.toHaveBeenCalled();
    fireEvent.keyDown(document.body, { key: "Backspace", ctrlKey: true, shiftKey: true });
    expect(reject.mock.calls).toEqual([[change("user_rejected")]]);
  });

  it("sends nothing by shortcut while disconnected", () => {
    const onSend = vi.fn(() => true);
    render(<ConfirmationBar events={[awaiting()]} disabled={true} onSend={onSend} />);
    fireEvent.keyDown(document.body, { key: "Enter", ctrlKey: true });
    expect(onSend).not.toHaveBeenCalled();
  });

  it("warns about a high-risk action only", () => {
    const { unmount } = render(<ConfirmationBar events={[awaiting(2)]} disabled={false} onSend={() => true} />);
    expect(screen.getByTestId("high-risk-banner").textContent).toContain("high risk");
    unmount();
    render(<ConfirmationBar events={[awaiting(1)]} disabled={false} onSend={() => true} />);
    expect(screen.queryByTestId("high-risk-banner")).toBeNull();
  });
});
