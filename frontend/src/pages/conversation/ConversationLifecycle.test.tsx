import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { LifecycleButton, lifecycleAction } from "./ConversationLifecycle";

describe("lifecycleAction", () => {
  it("offers stop while the loop runs or starts, and start once it stopped", () => {
    expect(lifecycleAction("RUNNING")).toBe("stop");
    expect(lifecycleAction("STARTING")).toBe("stop");
    expect(lifecycleAction("STOPPED")).toBe("start");
    expect(lifecycleAction("ERROR")).toBe("start");
    expect(lifecycleAction("ARCHIVED")).toBeNull();
    expect(lifecycleAction(undefined)).toBeNull();
  });
});

describe("LifecycleButton", () => {
  it("calls stop or start, and waits while one is under way", () => {
    const onStop = vi.fn();
    const onStart = vi.fn();
    const { rerender } = render(<LifecycleButton status="RUNNING" pending={null} onStop={onStop} onStart={onStart} />);
    fireEvent.click(screen.getByTestId("conversation-stop"));
    expect(onStop).toHaveBeenCalledTimes(1);

    rerender(<LifecycleButton status="RUNNING" pending="stopping" onStop={onStop} onStart={onStart} />);
    expect(screen.getByTestId("conversation-stop")).toHaveProperty("disabled", true);
    expect(screen.getByTestId("conversation-stop").textContent).toBe("Stopping…");

    rerender(<LifecycleButton status="STOPPED" pending={null} onStop={onStop} onStart={onStart} />);
    expect(screen.queryByTestId("conversation-stop")).toBeNull();
    fireEvent.click(screen.getByTestId("conversation-start"));
    expect(onStart).toHaveBeenCalledTimes(1);
  });
});
