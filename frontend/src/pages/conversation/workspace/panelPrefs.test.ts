import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_WIDTH,
  MAX_WIDTH,
  MIN_WIDTH,
  storeCollapsed,
  storedCollapsed,
  storedTab,
  storedWidth,
  storeTab,
  storeWidth,
} from "./panelPrefs";

afterEach(() => localStorage.clear());

describe("workspace panel preferences", () => {
  it("remembers width, hidden state and tab", () => {
    storeWidth(0.4);
    storeCollapsed(true);
    storeTab("changes");
    expect(storedWidth()).toBeCloseTo(0.4);
    expect(storedCollapsed()).toBe(true);
    expect(storedTab(["terminal", "changes"], "terminal")).toBe("changes");
  });

  it("falls back to the defaults on missing or odd values", () => {
    expect(storedWidth()).toBe(DEFAULT_WIDTH);
    expect(storedCollapsed()).toBe(false);
    localStorage.setItem("openhands:workspace-width", "wide");
    expect(storedWidth()).toBe(DEFAULT_WIDTH);
    localStorage.setItem("openhands:workspace-width", "5");
    expect(storedWidth()).toBe(MAX_WIDTH);
    storeWidth(0);
    expect(storedWidth()).toBe(MIN_WIDTH);
    storeTab("gone");
    expect(storedTab(["terminal", "changes"], "terminal")).toBe("terminal");
  });
});
