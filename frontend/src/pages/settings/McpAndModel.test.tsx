import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SettingsResponse } from "../../api/types";
import { applyLanguage } from "../../i18n";
import { DEFAULT_SETTINGS } from "../../state/settingsForm";
import { mockFetch } from "../../test/mockFetch";
import { renderWithApp } from "../../test/renderWithApp";
import SettingsPage from "./SettingsPage";

afterEach(async () => {
  vi.unstubAllGlobals();
  // A test that saves another language switches the UI; the next one starts in English.
  await act(() => applyLanguage("en"));
});

const STORED: SettingsResponse = {
  ...DEFAULT_SETTINGS,
  llm_model: "openai/gpt-4o",
  llm_api_key_set: true,
  search_api_key_set: true,
  provider_tokens_set: {},
  mcp_config: { sse_servers: [], shttp_servers: [{ url: "http://127.0.0.1:7001/mcp", api_key: "kept-key" }], stdio_servers: [] },
};

const ROUTES = {
  "GET /api/options/models": { body: ["anthropic/claude-2", "openai/gpt-3.5-turbo", "openai/gpt-4o", "zeta/z-1"] },
  "GET /api/options/agents": { body: ["CodeActAgent"] },
  "GET /api/options/security-analyzers": { body: [] },
  "GET /api/secrets": { body: { custom_secrets: [] } },
  "GET /api/settings": { body: STORED },
  "POST /api/settings": { body: { message: "Settings stored" } },
};

function posts(calls: { method: string; url: string; body: unknown }[]) {
  return calls.filter((c) => c.method === "POST" && c.url === "/api/settings").map((c) => c.body as Record<string, unknown>);
}

describe("the model picker", () => {
  it("lists verified models first for the chosen provider and fills the id", async () => {
    const { calls } = mockFetch(ROUTES);
    renderWithApp(<SettingsPage />, "/settings");
    const provider = (await screen.findByTestId("settings-model-provider")) as HTMLSelectElement;
    await waitFor(() => expect(provider.value).toBe("openai"));
    expect([...provider.options].slice(0, 4).map((o) => o.value)).toEqual(["openhands", "anthropic", "openai", "mistral"]);
    const choice = screen.getByTestId("settings-model-choice") as HTMLSelectElement;
    const groups = within(choice).getAllByRole("group");
    expect(groups[0]?.getAttribute("label")).toBe("Verified");
    expect(within(groups[1] as HTMLElement).getByRole("option", { name: "gpt-3.5-turbo" })).toBeTruthy();

    fireEvent.change(provider, { target: { value: "zeta" } });
    fireEvent.change(screen.getByTestId("settings-model-choice"), { target: { value: "z-1" } });
    expect((screen.getByTestId("settings-model") as HTMLInputElement).value).toBe("zeta/z-1");
    // Any LiteLLM id is still accepted as typed.
    fireEvent.change(screen.getByTestId("settings-model"), { target: { value: "openrouter/some/new-model" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    await waitFor(() => expect(posts(calls)).toHaveLength(1));
    expect(posts(calls)[0]?.llm_model).toBe("openrouter/some/new-model");
  });
});

describe("the other settings fields", () => {
  it("saves budget, condenser size, search key, git identity and language", async () => {
    const { calls } = mockFetch(ROUTES);
    renderWithApp(<SettingsPage />, "/settings");
    expect((await screen.findByTestId("settings-search-api-key-status")).textContent).toBe("A search key is set.");
    fireEvent.change(screen.getByTestId("settings-max-budget"), { target: { value: "3.5" } });
    fireEvent.change(screen.getByTestId("settings-condenser-size"), { target: { value: "64" } });
    fireEvent.change(screen.getByTestId("settings-search-api-key"), { target: { value: "tvly-new" } });
    fireEvent.change(screen.getByTestId("settings-git-user-name"), { target: { value: "Ada" } });
    fireEvent.change(screen.getByTestId("settings-git-user-email"), { target: { value: "ada@example.com" } });
    fireEvent.change(screen.getByTestId("settings-language"), { target: { value: "ar" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    await waitFor(() => expect(posts(calls)).toHaveLength(1));
    expect(posts(calls)[0]).toMatchObject({
      max_budget_per_task: 3.5,
      condenser_max_size: 64,
      search_api_key: "tvly-new",
      git_user_name: "Ada",
      git_user_email: "ada@example.com",
      language: "ar",
      mcp_config: STORED.mcp_config,
    });
    // Saving the language switches the page at once, right to left for Arabic.
    await waitFor(() => expect(document.documentElement.dir).toBe("rtl"));
  });

  it("shows what the server would refuse instead of posting it", async () => {
    const { calls } = mockFetch(ROUTES);
    renderWithApp(<SettingsPage />, "/settings");
    fireEvent.change(await screen.findByTestId("settings-condenser-size"), { target: { value: "5" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    expect(await screen.findByText(/at least 20/)).toBeTruthy();
    expect(posts(calls)).toHaveLength(0);
  });
});

describe("the MCP servers panel", () => {
  it("adds a stdio server next to the stored ones", async () => {
    const { calls } = mockFetch(ROUTES);
    renderWithApp(<SettingsPage />, "/settings");
    expect((await screen.findByTestId("mcp-server-row")).textContent).toContain("http://127.0.0.1:7001/mcp");
    fireEvent.click(screen.getByTestId("add-mcp-server"));
    fireEvent.change(screen.getByTestId("mcp-kind"), { target: { value: "stdio" } });
    fireEvent.change(screen.getByTestId("mcp-name"), { target: { value: "fetch" } });
    fireEvent.change(screen.getByTestId("mcp-command"), { target: { value: "uvx" } });
    fireEvent.change(screen.getByTestId("mcp-args"), { target: { value: "mcp-server-fetch" } });
    fireEvent.click(screen.getByTestId("save-mcp-server"));
    await waitFor(() => expect(posts(calls)).toHaveLength(1));
    const body = posts(calls)[0];
    expect(body?.mcp_config).toEqual({
      sse_servers: [],
      shttp_servers: [{ url: "http://127.0.0.1:7001/mcp", api_key: "kept-key" }],
      stdio_servers: [{ name: "fetch", command: "uvx", args: ["mcp-server-fetch"], env: {} }],
    });
    expect(body?.llm_model).toBe("openai/gpt-4o");
    expect(body).not.toHaveProperty("llm_api_key");
  });

  it("edits a server keeping its key, and removes one", async () => {
    const { calls } = mockFetch(ROUTES);
    renderWithApp(<SettingsPage />, "/settings");
    fireEvent.click(await screen.findByTestId("edit-mcp-server"));
    fireEvent.change(screen.getByTestId("mcp-timeout"), { target: { value: "120" } });
    fireEvent.click(screen.getByTestId("save-mcp-server"));
    await waitFor(() => expect(posts(calls)).toHaveLength(1));
    expect(posts(calls)[0]?.mcp_config).toMatchObject({
      shttp_servers: [{ url: "http://127.0.0.1:7001/mcp", api_key: "kept-key", timeout: 120 }],
    });
    // The save is over (settings re-read) once the form has closed.
    await screen.findByTestId("add-mcp-server");
    fireEvent.click(screen.getByTestId("remove-mcp-server"));
    await waitFor(() => expect(posts(calls)).toHaveLength(2));
    expect(posts(calls)[1]?.mcp_config).toEqual({ sse_servers: [], shttp_servers: [], stdio_servers: [] });
  });

  it("explains a bad URL without posting", async () => {
    const { calls } = mockFetch(ROUTES);
    renderWithApp(<SettingsPage />, "/settings");
    fireEvent.click(await screen.findByTestId("add-mcp-server"));
    fireEvent.change(screen.getByTestId("mcp-url"), { target: { value: "not a url" } });
    fireEvent.click(screen.getByTestId("save-mcp-server"));
    expect(await screen.findByText(/Enter the server's http\(s\) URL/)).toBeTruthy();
    expect(posts(calls)).toHaveLength(0);
  });
});
