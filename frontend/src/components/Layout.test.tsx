import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { mockFetch } from "../test/mockFetch";
import { Layout } from "./Layout";

function stubWidth(narrow: boolean) {
  vi.stubGlobal("matchMedia", (query: string) => ({
    matches: narrow && query.includes("max-width: 1024px"),
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  }));
}

function renderLayout() {
  return render(
    <MemoryRouter initialEntries={["/"]}>
      <Routes>
        <Route element={<Layout />}>
          <Route index element={<p>home</p>} />
        </Route>
      </Routes>
    </MemoryRouter>,
  );
}

beforeEach(() => {
  localStorage.clear();
  mockFetch({ "GET /api/conversations": { body: { results: [], next_page_id: null } } });
});
afterEach(() => vi.unstubAllGlobals());

describe("Layout", () => {
  it("shows the sidebar on wide screens and remembers when it is hidden", () => {
    stubWidth(false);
    const first = renderLayout();
    expect(screen.getByTestId("sidebar")).toBeTruthy();
    const toggle = screen.getByTestId("sidebar-toggle");
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    fireEvent.click(toggle);
    expect(screen.queryByTestId("sidebar")).toBeNull();
    first.unmount();
    renderLayout();
    expect(screen.queryByTestId("sidebar")).toBeNull();
    expect(screen.getByTestId("nav-overview").getAttribute("href")).toBe("/agents");
  });

  it("keeps the sidebar closed on narrow screens until asked for", () => {
    stubWidth(true);
    renderLayout();
    expect(screen.queryByTestId("sidebar")).toBeNull();
    fireEvent.click(screen.getByTestId("sidebar-toggle"));
    expect(screen.getByTestId("sidebar")).toBeTruthy();
    // The choice made on a narrow screen is not what a wide screen remembers.
    expect(localStorage.getItem("openhands:sidebar-open")).toBeNull();
  });
});
