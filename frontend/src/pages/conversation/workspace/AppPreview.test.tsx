import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { AppPreview } from "./AppPreview";

describe("AppPreview", () => {
  it("moves the preview along the typed path and stays on the app", () => {
    render(<AppPreview base="http://localhost:50123/" />);
    const frame = () => screen.getByTestId("served-app-frame") as HTMLIFrameElement;
    const path = screen.getByTestId("app-path") as HTMLInputElement;
    expect(path.value).toBe("/");
    expect(frame().src).toBe("http://localhost:50123/");

    fireEvent.change(path, { target: { value: "docs?page=2" } });
    fireEvent.click(screen.getByTestId("app-path-go"));
    expect(frame().src).toBe("http://localhost:50123/docs?page=2");
    expect(path.value).toBe("/docs?page=2");

    fireEvent.change(path, { target: { value: "https://example.com/" } });
    fireEvent.click(screen.getByTestId("app-path-go"));
    expect(screen.getByRole("alert").textContent).toContain("Type a path on this app");
    expect(frame().src).toBe("http://localhost:50123/docs?page=2");
  });
});
