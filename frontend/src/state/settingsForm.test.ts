import { describe, expect, it } from "vitest";
import type { SettingsResponse } from "../api/types";
import {
  buildSettingsPayload,
  DEFAULT_SETTINGS,
  formFromSettings,
  payloadWith,
  validateSettingsForm,
  type SettingsFormValues,
} from "./settingsForm";

const STORED: SettingsResponse = {
  ...DEFAULT_SETTINGS,
  llm_model: "openai/gpt-4o",
  llm_base_url: "http://127.0.0.1:9000/v1",
  agent: "CodeActAgent",
  confirmation_mode: true,
  security_analyzer: "llm",
  max_iterations: 50,
  enable_default_condenser: false,
  git_user_name: "dev",
  mcp_config: { sse_servers: ["http://127.0.0.1:7000/sse"], stdio_servers: [], shttp_servers: [] },
  llm_api_key_set: true,
  search_api_key_set: false,
  provider_tokens_set: { github: "github.com" },
  secrets_store: { provider_tokens: {} },
};

function form(overrides: Partial<SettingsFormValues> = {}, stored: SettingsResponse | null = STORED): SettingsFormValues {
  return { ...formFromSettings(stored), ...overrides };
}

describe("formFromSettings", () => {
  it("fills the form from stored settings and never shows the key", () => {
    expect(formFromSettings(STORED)).toEqual({
      llmModel: "openai/gpt-4o",
      llmApiKey: "",
      clearApiKey: false,
      llmBaseUrl: "http://127.0.0.1:9000/v1",
      agent: "CodeActAgent",
      confirmationMode: true,
      securityAnalyzer: "llm",
      maxIterations: "50",
      enableDefaultCondenser: false,
      condenserMaxSize: "120",
      maxBudgetPerTask: "",
      searchApiKey: "",
      clearSearchApiKey: false,
      gitUserName: "dev",
      gitUserEmail: "openhands@all-hands.dev",
      language: "en",
    });
  });

  it("uses the first-run defaults when nothing is stored", () => {
    const values = formFromSettings(null);
    expect(values.llmModel).toBe("openhands/claude-sonnet-4-20250514");
    expect(values.agent).toBe("CodeActAgent");
    expect(values.enableDefaultCondenser).toBe(true);
  });
});

describe("buildSettingsPayload", () => {
  it("sends the full merged object with the spec's field names", () => {
    const payload = buildSettingsPayload(STORED, form({ llmModel: " anthropic/claude-3-5-sonnet ", maxIterations: "30" }));
    expect(payload).toMatchObject({
      llm_model: "anthropic/claude-3-5-sonnet",
      llm_base_url: "http://127.0.0.1:9000/v1",
      agent: "CodeActAgent",
      confirmation_mode: true,
      security_analyzer: "llm",
      max_iterations: 30,
      enable_default_condenser: false,
      git_user_name: "dev",
      condenser_max_size: 120,
      mcp_config: STORED.mcp_config,
    });
  });

  it("drops the derived GET-only fields", () => {
    const payload = buildSettingsPayload(STORED, form()) as Record<string, unknown>;
    for (const key of ["llm_api_key_set", "search_api_key_set", "provider_tokens_set", "secrets_store"]) {
      expect(payload).not.toHaveProperty(key);
    }
  });

  it("leaves the key out when the box is blank, so the stored key is kept", () => {
    const payload = buildSettingsPayload(STORED, form());
    expect(payload).not.toHaveProperty("llm_api_key");
    expect(payload).not.toHaveProperty("search_api_key");
  });

  it("sends a typed key", () => {
    expect(buildSettingsPayload(STORED, form({ llmApiKey: " sk-new " })).llm_api_key).toBe("sk-new");
  });

  it("sends an empty string to clear the stored key", () => {
    expect(buildSettingsPayload(STORED, form({ clearApiKey: true, llmApiKey: "ignored" })).llm_api_key).toBe("");
  });

  it("maps empty optional inputs to null", () => {
    const payload = buildSettingsPayload(null, form({ securityAnalyzer: "", maxIterations: "" }, null));
    expect(payload.security_analyzer).toBeNull();
    expect(payload.max_iterations).toBeNull();
    expect(payload.llm_base_url).toBeNull();
  });

  it("clears a stored base URL with an empty string (null would keep it)", () => {
    expect(buildSettingsPayload(STORED, form({ llmBaseUrl: "  " })).llm_base_url).toBe("");
  });

  it("builds a first-run payload from the defaults", () => {
    const payload = buildSettingsPayload(null, form({ llmModel: "openai/gpt-4o-mini", llmApiKey: "sk-1" }, null));
    expect(payload).toMatchObject({
      llm_model: "openai/gpt-4o-mini",
      llm_api_key: "sk-1",
      agent: "CodeActAgent",
      confirmation_mode: false,
      enable_default_condenser: true,
      condenser_max_size: 120,
    });
  });
});

describe("validateSettingsForm", () => {
  it("accepts a valid form", () => {
    expect(validateSettingsForm(form())).toEqual({});
  });

  it("needs a model, a positive integer and an http(s) URL", () => {
    const errors = validateSettingsForm(form({ llmModel: " ", maxIterations: "-3", llmBaseUrl: "ftp://x" }));
    expect(Object.keys(errors).sort()).toEqual(["llmBaseUrl", "llmModel", "maxIterations"]);
  });
});

describe("the budget, condenser, search key, git identity and language fields", () => {
  it("sends them under the spec's field names", () => {
    const payload = buildSettingsPayload(
      STORED,
      form({
        maxBudgetPerTask: "2.5",
        condenserMaxSize: "40",
        searchApiKey: "tvly-key",
        gitUserName: "Ada",
        gitUserEmail: "ada@example.com",
        language: "ja",
      }),
    );
    expect(payload).toMatchObject({
      max_budget_per_task: 2.5,
      condenser_max_size: 40,
      search_api_key: "tvly-key",
      git_user_name: "Ada",
      git_user_email: "ada@example.com",
      language: "ja",
    });
  });

  it("keeps the stored search key when the box is blank and clears it on request", () => {
    expect(buildSettingsPayload(STORED, form())).not.toHaveProperty("search_api_key");
    expect(buildSettingsPayload(STORED, form({ clearSearchApiKey: true })).search_api_key).toBe("");
  });

  it("maps empty budget and condenser size to null (no budget, server default)", () => {
    const payload = buildSettingsPayload(STORED, form({ maxBudgetPerTask: "", condenserMaxSize: "" }));
    expect(payload.max_budget_per_task).toBeNull();
    expect(payload.condenser_max_size).toBeNull();
  });

  it("rejects what the server would refuse", () => {
    const errors = validateSettingsForm(form({ condenserMaxSize: "19", maxBudgetPerTask: "-1", gitUserEmail: "nope" }));
    expect(Object.keys(errors).sort()).toEqual(["condenserMaxSize", "gitUserEmail", "maxBudgetPerTask"]);
    expect(validateSettingsForm(form({ condenserMaxSize: "20", maxBudgetPerTask: "0.5" }))).toEqual({});
  });
});

describe("payloadWith", () => {
  it("re-sends the stored settings with one field changed and no secrets", () => {
    const mcp = { sse_servers: [], stdio_servers: [], shttp_servers: ["http://127.0.0.1:9/mcp"] };
    const payload = payloadWith(STORED, { mcp_config: mcp });
    expect(payload).toMatchObject({ llm_model: "openai/gpt-4o", git_user_name: "dev", mcp_config: mcp });
    expect(payload).not.toHaveProperty("llm_api_key");
    expect(payload).not.toHaveProperty("search_api_key");
  });
});
