import { act, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { applyLanguage } from "../../i18n";
import ja from "../../i18n/locales/ja/settings.json";
import { DEFAULT_SETTINGS } from "../../state/settingsForm";
import { mockFetch } from "../../test/mockFetch";
import { renderWithApp } from "../../test/renderWithApp";
import SettingsPage from "./SettingsPage";

const OPTIONS = {
  "GET /api/options/models": { body: ["anthropic/claude-3-5-sonnet", "openai/gpt-4o"] },
  "GET /api/options/agents": { body: ["BrowsingAgent", "CodeActAgent"] },
  "GET /api/options/security-analyzers": { body: ["grayswan", "invariant", "llm"] },
  "GET /api/secrets": { body: { custom_secrets: [{ name: "API_TOKEN", description: "for tests" }] } },
  "POST /api/settings": { body: { message: "Settings stored" } },
};

afterEach(() => vi.unstubAllGlobals());

function settingsPost(calls: { method: string; url: string; body: unknown }[]) {
  return calls.find((c) => c.method === "POST" && c.url === "/api/settings")?.body as Record<string, unknown> | undefined;
}

describe("SettingsPage", () => {
  it("saves a first-run configuration with the spec's field names", async () => {
    const { calls } = mockFetch({ ...OPTIONS, "GET /api/settings": { status: 404, body: { error: "Settings not found" } } });
    renderWithApp(<SettingsPage />, "/settings");

    expect(await screen.findByTestId("settings-first-run")).toBeTruthy();
    await screen.findByRole("option", { name: "BrowsingAgent" });
    fireEvent.change(screen.getByTestId("settings-model"), { target: { value: "openai/gpt-4o" } });
    fireEvent.change(screen.getByTestId("settings-api-key"), { target: { value: "sk-test" } });
    fireEvent.change(screen.getByTestId("settings-base-url"), { target: { value: "http://127.0.0.1:9999/v1" } });
    fireEvent.change(screen.getByTestId("settings-max-iterations"), { target: { value: "25" } });
    fireEvent.click(screen.getByTestId("settings-confirmation-mode"));
    fireEvent.change(screen.getByTestId("settings-security-analyzer"), { target: { value: "llm" } });
    fireEvent.click(screen.getByTestId("settings-condenser"));
    fireEvent.click(screen.getByTestId("settings-save"));

    await waitFor(() => expect(settingsPost(calls)).toBeDefined());
    expect(settingsPost(calls)).toMatchObject({
      llm_model: "openai/gpt-4o",
      llm_api_key: "sk-test",
      llm_base_url: "http://127.0.0.1:9999/v1",
      agent: "CodeActAgent",
      max_iterations: 25,
      confirmation_mode: true,
      security_analyzer: "llm",
      enable_default_condenser: false,
    });
  });

  it("shows a stored key as set and keeps it when the box stays blank", async () => {
    const { calls } = mockFetch({
      ...OPTIONS,
      "GET /api/settings": {
        body: { ...DEFAULT_SETTINGS, llm_model: "openai/gpt-4o", llm_api_key_set: true, search_api_key_set: false, provider_tokens_set: {} },
      },
    });
    renderWithApp(<SettingsPage />, "/settings");
    expect((await screen.findByTestId("settings-api-key-status")).textContent).toBe("A key is set.");
    expect((screen.getByTestId("settings-model") as HTMLInputElement).value).toBe("openai/gpt-4o");
    fireEvent.click(screen.getByTestId("settings-save"));
    await waitFor(() => expect(settingsPost(calls)).toBeDefined());
    expect(settingsPost(calls)).not.toHaveProperty("llm_api_key");
    expect(settingsPost(calls)).not.toHaveProperty("llm_api_key_set");
  });

  it("does not post an invalid form", async () => {
    const { calls } = mockFetch({ ...OPTIONS, "GET /api/settings": { status: 404, body: { error: "Settings not found" } } });
    renderWithApp(<SettingsPage />, "/settings");
    fireEvent.change(await screen.findByTestId("settings-model"), { target: { value: "" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    expect(await screen.findByText("Choose a model or type its LiteLLM id.")).toBeTruthy();
    expect(settingsPost(calls)).toBeUndefined();
  });

  it("lists secrets by name and adds one", async () => {
    const { calls } = mockFetch({
      ...OPTIONS,
      "GET /api/settings": { status: 404, body: { error: "Settings not found" } },
      "POST /api/secrets": { status: 201, body: { message: "Secret created successfully" } },
    });
    renderWithApp(<SettingsPage />, "/settings");
    expect((await screen.findByTestId("secret-row")).textContent).toContain("API_TOKEN");
    fireEvent.change(screen.getByTestId("secret-name-input"), { target: { value: "DB_PASSWORD" } });
    fireEvent.change(screen.getByTestId("secret-value-input"), { target: { value: "hunter2" } });
    fireEvent.click(screen.getByTestId("add-secret"));
    await waitFor(() => expect(calls.some((c) => c.method === "POST" && c.url === "/api/secrets")).toBe(true));
    expect(calls.find((c) => c.method === "POST" && c.url === "/api/secrets")?.body).toEqual({
      name: "DB_PASSWORD",
      value: "hunter2",
    });
  });
});

describe("SettingsPage in Japanese", () => {
  afterEach(async () => {
    await act(() => applyLanguage("en"));
  });

  it("labels the fields, counts the models and words validation in Japanese", async () => {
    const { calls } = mockFetch({ ...OPTIONS, "GET /api/settings": { status: 404, body: { error: "Settings not found" } } });
    await act(() => applyLanguage("ja"));
    renderWithApp(<SettingsPage />, "/settings");

    expect(await screen.findByRole("heading", { level: 1, name: ja.title })).toBeTruthy();
    // The label is tied to its input, so the translated text finds the right control.
    expect(await screen.findByLabelText(ja.storedKey.llm.label)).toBe(screen.getByTestId("settings-api-key"));
    expect(screen.getByLabelText(ja.more.gitUserEmail)).toBe(screen.getByTestId("settings-git-user-email"));
    await screen.findByRole("option", { name: "BrowsingAgent" });
    expect(screen.getByTestId("settings-api-key-status").textContent).toBe(ja.storedKey.llm.unset);
    expect(await screen.findByText(ja.model.knownModels_other.replace("{{count}}", "2"))).toBeTruthy();

    fireEvent.change(screen.getByTestId("settings-model"), { target: { value: "" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    expect(await screen.findByText(ja.validation.llmModel)).toBeTruthy();
    expect(settingsPost(calls)).toBeUndefined();
  });

  it("confirms a save that picks Japanese in Japanese", async () => {
    mockFetch({ ...OPTIONS, "GET /api/settings": { status: 404, body: { error: "Settings not found" } } });
    renderWithApp(<SettingsPage />, "/settings");
    fireEvent.change(await screen.findByTestId("settings-model"), { target: { value: "openai/gpt-4o" } });
    fireEvent.change(screen.getByTestId("settings-language"), { target: { value: "ja" } });
    fireEvent.click(screen.getByTestId("settings-save"));
    expect(await screen.findByText(ja.llm.saved)).toBeTruthy();
  });
});
