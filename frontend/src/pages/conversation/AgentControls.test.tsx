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

describe("ConfirmationBar", () => {
  it("confirms or rejects the pending action", () => {
    const onSend = vi.fn(() => true);
    const pending = {
      ...ACTION_FIXTURES.run,
      args: { ...ACTION_FIXTURES.run.args, confirmation_state: "awaiting_confirmation" as const },
    };
    render(<ConfirmationBar events={[pending]} disabled={false} onSend={onSend} />);
    expect(screen.getByTestId("confirmation-bar").textContent).toContain("Run: python hello.py");
    fireEvent.click(screen.getByTestId("confirm-action"));
    fireEvent.click(screen.getByTestId("reject-action"));
    expect(onSend.mock.calls).toEqual([[change("user_confirmed")], [change("user_rejected")]]);
  });
});
