import { act, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { applyLanguage } from "../../i18n";
import homeJa from "../../i18n/locales/ja/home.json";
import overviewJa from "../../i18n/locales/ja/overview.json";
import { DEFAULT_SETTINGS } from "../../state/settingsForm";
import { mockFetch } from "../../test/mockFetch";
import { renderWithApp } from "../../test/renderWithApp";
import OverviewPage from "../overview/OverviewPage";
import { HomePage } from "./HomePage";

const SETTINGS = { ...DEFAULT_SETTINGS, llm_api_key_set: true, search_api_key_set: false, provider_tokens_set: {} };

afterEach(async () => {
  vi.unstubAllGlobals();
  await act(() => applyLanguage("en"));
});

describe("Home and the overview in Japanese", () => {
  it("words Home's form and its empty list in Japanese", async () => {
    mockFetch({
      "GET /api/settings": { body: SETTINGS },
      "GET /api/conversations": { body: { results: [], next_page_id: null } },
    });
    await act(() => applyLanguage("ja"));
    renderWithApp(<HomePage />);
    expect((await screen.findByTestId("no-conversations")).textContent).toBe(homeJa.list.empty);
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe(homeJa.form.title);
    expect(screen.getByTestId("start-conversation").getAttribute("aria-label")).toBe(homeJa.form.startLabel);
  });

  it("words the overview's heading and empty state in Japanese", async () => {
    mockFetch({
      "GET /api/settings": { body: SETTINGS },
      "GET /api/conversations": { body: { results: [], next_page_id: null } },
    });
    await act(() => applyLanguage("ja"));
    renderWithApp(<OverviewPage />);
    expect((await screen.findByTestId("overview-empty")).textContent).toContain(overviewJa.empty);
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe(overviewJa.title);
  });
});
