/** Human wording for runtime status ids and agent states. */
import type { AgentState } from "../api/types";

const STATUS_TEXT: Record<string, string> = {
  STATUS$STOPPED: "The runtime is stopped.",
  STATUS$BUILDING_RUNTIME: "Building the runtime…",
  STATUS$STARTING_RUNTIME: "Starting the runtime…",
  STATUS$RUNTIME_STARTED: "Runtime started.",
  STATUS$SETTING_UP_WORKSPACE: "Setting up the workspace…",
  STATUS$SETTING_UP_GIT_HOOKS: "Setting up git hooks…",
  STATUS$READY: "Ready.",
  STATUS$ERROR: "The runtime reported an error.",
  STATUS$ERROR_RUNTIME_DISCONNECTED: "The runtime disconnected.",
  STATUS$ERROR_LLM_AUTHENTICATION: "The LLM provider rejected the API key. Check it in Settings.",
  STATUS$ERROR_LLM_SERVICE_UNAVAILABLE: "The LLM service is unavailable.",
  STATUS$ERROR_LLM_INTERNAL_SERVER_ERROR: "The LLM service had an internal error.",
  STATUS$ERROR_LLM_OUT_OF_CREDITS: "The LLM account is out of credits.",
  STATUS$ERROR_LLM_CONTENT_POLICY_VIOLATION: "The LLM refused the request (content policy).",
  CHAT_INTERFACE$AGENT_RATE_LIMITED_STOPPED_MESSAGE: "The agent was stopped after being rate limited.",
  STATUS$GIT_PROVIDER_AUTHENTICATION_ERROR: "The git provider rejected the token.",
  STATUS$LLM_RETRY: "Retrying the LLM request…",
  STATUS$ERROR_MEMORY: "The runtime ran out of memory.",
  AGENT_ERROR$TOO_MANY_CONVERSATIONS:
    "Too many conversations at once. Send a message to reactivate this one.",
  CONFIGURATION$SETTINGS_NOT_FOUND: "No settings are stored yet. Configure a model in Settings.",
  CONVERSATION$NOT_FOUND: "This conversation does not exist.",
};

/**
 * Prefer the server's own message when it says more than the id (LLM retries
 * carry "Retrying LLM request, 2 / 5"); fall back to our wording, then the id.
 */
export function statusText(id: string | null | undefined, message?: string | null): string {
  const known = id ? STATUS_TEXT[id] : undefined;
  if (message && message !== id) return message;
  return known ?? message ?? id ?? "";
}

export function runtimeStatusText(id: string | null | undefined): string {
  return (id && STATUS_TEXT[id]) || id || "";
}

export const AGENT_STATE_TEXT: Record<AgentState, string> = {
  loading: "Loading",
  init: "Initializing",
  running: "Running",
  awaiting_user_input: "Waiting for your input",
  paused: "Paused",
  stopped: "Stopped",
  finished: "Finished",
  rejected: "Rejected",
  error: "Error",
  rate_limited: "Rate limited",
  awaiting_user_confirmation: "Waiting for your confirmation",
  user_confirmed: "Confirmed",
  user_rejected: "Rejected by you",
};

/** States in which the runtime-backed panels can be used (useRuntimeIsReady). */
export function runtimeIsReady(state: AgentState | null): boolean {
  return state !== null && state !== "loading" && state !== "init" && state !== "error";
}
