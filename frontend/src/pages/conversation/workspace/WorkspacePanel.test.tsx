import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { initialConversationState } from "../../../state/conversationReducer";
import { ACTION_FIXTURES, OBSERVATION_FIXTURES } from "../../../test/fixtures/events";
import { ResizeHandle } from "./ResizeHandle";
import { WorkspacePanel } from "./WorkspacePanel";

vi.mock("./TerminalTab", () => ({ default: () => <div data-testid="terminal" /> }));

afterEach(() => localStorage.clear());

describe("WorkspacePanel", () => {
  it("opens on the tab chosen last time", () => {
    const state = initialConversationState;
    const first = render(<WorkspacePanel workspace={null} state={state} onSend={() => true} />);
    expect(screen.getByTestId("tab-terminal").getAttribute("aria-selected")).toBe("true");
    fireEvent.click(screen.getByTestId("tab-jupyter"));
    first.unmount();
    render(<WorkspacePanel workspace={null} state={state} onSend={() => true} />);
    expect(screen.getByTestId("tab-jupyter").getAttribute("aria-selected")).toBe("true");
  });

  it("lists the IPython cells the agent ran, read-only", () => {
    const cell = { ...ACTION_FIXTURES.run_ipython, id: 9 };
    const output = { ...OBSERVATION_FIXTURES.run_ipython, cause: 9 };
    const state = { ...initialConversationState, events: [cell, output] };
    render(<WorkspacePanel workspace={null} state={state} onSend={() => true} />);
    fireEvent.click(screen.getByTestId("tab-jupyter"));
    const cells = screen.getAllByTestId("jupyter-cell");
    expect(cells).toHaveLength(1);
    expect(cells[0]!.textContent).toContain("In [1]:");
    expect(cells[0]!.textContent).toContain(cell.args.code);
    expect(cells[0]!.textContent).toContain(output.content);
    expect(cells[0]!.querySelector("textarea, input")).toBeNull();
  });

  it("has a hide button when the page can hide it", () => {
    const onCollapse = vi.fn();
    render(<WorkspacePanel workspace={null} state={initialConversationState} onSend={() => true} onCollapse={onCollapse} />);
    fireEvent.click(screen.getByTestId("workspace-collapse"));
    expect(onCollapse).toHaveBeenCalledTimes(1);
  });
});

describe("ResizeHandle", () => {
  it("resizes from the keyboard within bounds and hides on Enter", () => {
    const onResizeEnd = vi.fn();
    const onCollapse = vi.fn();
    render(<ResizeHandle width={0.5} onResize={() => undefined} onResizeEnd={onResizeEnd} onCollapse={onCollapse} />);
    const handle = screen.getByRole("separator");
    expect(handle.getAttribute("aria-valuenow")).toBe("50");
    fireEvent.keyDown(handle, { key: "ArrowLeft" });
    fireEvent.keyDown(handle, { key: "ArrowRight" });
    fireEvent.keyDown(handle, { key: "End" });
    fireEvent.keyDown(handle, { key: "Home" });
    expect(onResizeEnd.mock.calls.map(([w]) => Math.round((w as number) * 100))).toEqual([55, 45, 25, 75]);
    fireEvent.keyDown(handle, { key: "Enter" });
    expect(onCollapse).toHaveBeenCalledTimes(1);
  });
});
