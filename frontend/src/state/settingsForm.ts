/**
 * Settings form <-> POST /api/settings payload (server-api.md §4, §6.5, §9.2).
 *
 * POST /api/settings is a full replacement, so the payload is the stored
 * settings merged with the form (every field sent), except the secrets:
 * `llm_api_key` is left out to keep the stored key and sent as "" to clear it.
 */
import type { Settings, SettingsPayload, SettingsResponse } from "../api/types";

export const DEFAULT_MODEL = "openhands/claude-sonnet-4-20250514";
export const DEFAULT_AGENT = "CodeActAgent";

/** What the UI assumes when nothing is stored (GET /api/settings answered 404). */
export const DEFAULT_SETTINGS: Settings = {
  language: "en",
  agent: DEFAULT_AGENT,
  max_iterations: null,
  security_analyzer: null,
  confirmation_mode: false,
  llm_model: DEFAULT_MODEL,
  llm_api_key: null,
  llm_base_url: null,
  remote_runtime_resource_factor: null,
  enable_default_condenser: true,
  enable_sound_notifications: false,
  enable_proactive_conversation_starters: true,
  enable_solvability_analysis: true,
  user_consents_to_analytics: null,
  sandbox_base_container_image: null,
  sandbox_runtime_container_image: null,
  mcp_config: null,
  search_api_key: null,
  sandbox_api_key: null,
  max_budget_per_task: null,
  condenser_max_size: 120,
  email: null,
  email_verified: null,
  git_user_name: "openhands",
  git_user_email: "openhands@all-hands.dev",
};

const SETTINGS_KEYS = Object.keys(DEFAULT_SETTINGS) as (keyof Settings)[];

export interface SettingsFormValues {
  llmModel: string;
  /** Write-only: empty means "keep the stored key". */
  llmApiKey: string;
  clearApiKey: boolean;
  llmBaseUrl: string;
  agent: string;
  confirmationMode: boolean;
  /** "" means no analyzer. */
  securityAnalyzer: string;
  /** Text of the number input; "" means no limit. */
  maxIterations: string;
  enableDefaultCondenser: boolean;
  /** Text of the number input; "" means the server's default (120). */
  condenserMaxSize: string;
  /** Text of the number input (USD); "" means no budget. */
  maxBudgetPerTask: string;
  /** Write-only like the LLM key: empty keeps the stored one. */
  searchApiKey: string;
  clearSearchApiKey: boolean;
  gitUserName: string;
  gitUserEmail: string;
  language: string;
}

/** Smallest condenser size the server accepts (server-api.md §4: else 422). */
export const MIN_CONDENSER_SIZE = 20;

export function formFromSettings(stored: SettingsResponse | null): SettingsFormValues {
  const s = stored ?? DEFAULT_SETTINGS;
  return {
    llmModel: s.llm_model ?? "",
    llmApiKey: "",
    clearApiKey: false,
    llmBaseUrl: s.llm_base_url ?? "",
    agent: s.agent ?? DEFAULT_AGENT,
    confirmationMode: s.confirmation_mode ?? false,
    securityAnalyzer: s.security_analyzer ?? "",
    maxIterations: s.max_iterations == null ? "" : String(s.max_iterations),
    enableDefaultCondenser: s.enable_default_condenser ?? true,
    condenserMaxSize: s.condenser_max_size == null ? "" : String(s.condenser_max_size),
    maxBudgetPerTask: s.max_budget_per_task == null ? "" : String(s.max_budget_per_task),
    searchApiKey: "",
    clearSearchApiKey: false,
    gitUserName: s.git_user_name ?? "",
    gitUserEmail: s.git_user_email ?? "",
    language: s.language ?? "en",
  };
}

const BUDGET = /^\d+(\.\d+)?$/;

/** Problems that would make the server reject the payload; empty when valid. */
export function validateSettingsForm(form: SettingsFormValues): Partial<Record<keyof SettingsFormValues, string>> {
  const errors: Partial<Record<keyof SettingsFormValues, string>> = {};
  if (!form.llmModel.trim()) errors.llmModel = "Choose a model or type its LiteLLM id.";
  const iterations = form.maxIterations.trim();
  if (iterations && !/^[1-9]\d*$/.test(iterations)) {
    errors.maxIterations = "Enter a whole number greater than 0, or leave empty.";
  }
  const url = form.llmBaseUrl.trim();
  if (url && !/^https?:\/\/\S+$/i.test(url)) errors.llmBaseUrl = "Enter an http:// or https:// URL.";
  const condenser = form.condenserMaxSize.trim();
  if (condenser && !(/^\d+$/.test(condenser) && Number(condenser) >= MIN_CONDENSER_SIZE)) {
    errors.condenserMaxSize = `Enter a whole number of at least ${MIN_CONDENSER_SIZE}, or leave empty.`;
  }
  const budget = form.maxBudgetPerTask.trim();
  if (budget && !(BUDGET.test(budget) && Number(budget) > 0)) {
    errors.maxBudgetPerTask = "Enter an amount in dollars greater than 0 (e.g. 2.50), or leave empty.";
  }
  const email = form.gitUserEmail.trim();
  if (email && !/^[^\s@]+@[^\s@]+$/.test(email)) errors.gitUserEmail = "Enter an email address like name@example.com.";
  return errors;
}

/** Only the Settings fields of a GET response (drops the derived *_set flags). */
function storedFields(stored: SettingsResponse | null): Settings {
  const merged: Settings = { ...DEFAULT_SETTINGS };
  if (!stored) return merged;
  const target = merged as unknown as Record<string, unknown>;
  const source = stored as unknown as Record<string, unknown>;
  for (const key of SETTINGS_KEYS) {
    if (key in source && source[key] !== undefined) target[key] = source[key];
  }
  return merged;
}

export function buildSettingsPayload(stored: SettingsResponse | null, form: SettingsFormValues): SettingsPayload {
  const payload: SettingsPayload = { ...storedFields(stored) };

  payload.llm_model = form.llmModel.trim() || null;

  // Secrets come back from GET as null; sending null or nothing keeps them.
  delete payload.llm_api_key;
  delete payload.search_api_key;
  delete payload.sandbox_api_key;
  const key = form.llmApiKey.trim();
  if (form.clearApiKey) payload.llm_api_key = "";
  else if (key) payload.llm_api_key = key;

  // null keeps the stored base URL, so clearing a stored one needs "".
  const baseUrl = form.llmBaseUrl.trim();
  payload.llm_base_url = baseUrl || (stored?.llm_base_url ? "" : null);

  payload.agent = form.agent || null;
  payload.confirmation_mode = form.confirmationMode;
  payload.security_analyzer = form.securityAnalyzer || null;
  const iterations = form.maxIterations.trim();
  payload.max_iterations = /^[1-9]\d*$/.test(iterations) ? Number(iterations) : null;
  payload.enable_default_condenser = form.enableDefaultCondenser;
  const condenser = form.condenserMaxSize.trim();
  payload.condenser_max_size = condenser ? Number(condenser) : null;
  const budget = form.maxBudgetPerTask.trim();
  payload.max_budget_per_task = budget ? Number(budget) : null;
  // Same rule as the LLM key: null keeps the stored search key, "" clears it.
  const searchKey = form.searchApiKey.trim();
  if (form.clearSearchApiKey) payload.search_api_key = "";
  else if (searchKey) payload.search_api_key = searchKey;
  payload.git_user_name = form.gitUserName.trim() || null;
  payload.git_user_email = form.gitUserEmail.trim() || null;
  payload.language = form.language || null;
  return payload;
}

/** The stored settings re-sent unchanged except for `patch` (pages that edit one field). */
export function payloadWith(stored: SettingsResponse, patch: SettingsPayload): SettingsPayload {
  return { ...buildSettingsPayload(stored, formFromSettings(stored)), ...patch };
}
