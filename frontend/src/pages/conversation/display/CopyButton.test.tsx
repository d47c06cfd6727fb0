import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CopyButton } from "./CopyButton";

afterEach(() => vi.unstubAllGlobals());

describe("CopyButton", () => {
  it("copies the text and says so", async () => {
    const writeText = vi.fn(async () => undefined);
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText } });
    render(<CopyButton text="the **whole** message" />);
    fireEvent.click(screen.getByTestId("copy-message"));
    expect(await screen.findByText("Copied")).toBeTruthy();
    expect(writeText).toHaveBeenCalledWith("the **whole** message");
  });

  it("says when the clipboard refused", async () => {
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText: vi.fn(async () => Promise.reject(new Error("denied"))) } });
    render(<CopyButton text="x" />);
    fireEvent.click(screen.getByTestId("copy-message"));
    expect(await screen.findByText("Copy failed")).toBeTruthy();
  });
});
