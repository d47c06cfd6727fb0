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
 * The runtime's start-up steps. Their wording is ours and depends on the id
 * alone: a build log line or a generic server message never turns a plain
 * start into "Building the runtime…", nor the other way round.
 */
const RUNTIME_PROGRESS: ReadonlySet<string> = new Set([
  "STATUS$BUILDING_RUNTIME",
  "STATUS$STARTING_RUNTIME",
  "STATUS$RUNTIME_STARTED",
  "STATUS$SETTING_UP_WORKSPACE",
  "STATUS$SETTING_UP_GIT_HOOKS",
  "STATUS$READY",
]);

/**
 * Our wording for runtime start-up steps. Otherwise prefer the server's own
 * message when it says more than the id (LLM retries carry "Retrying LLM
 * request, 2 / 5"); fall back to our wording, then the id.
 */
export function statusText(id: string | null | undefined, message?: string | null): string {
  const known = id ? STATUS_TEXT[id] : undefined;
  if (id && known && RUNTIME_PROGRESS.has(id)) return known;
  if (message && message !== id) return message;
  return known ?? message ?? id ?? "";
}

export function runtimeStatusText(id: string | null | undefined): string {
  return (id && STATUS_TEXT[id]) || id || "";
}

/** Shown while a (re)started conversation has no runtime status yet, or a stale one. */
export const STARTING_TEXT = "Starting the runtime…";

/**
 * Progress text for a conversation that is STARTING, from its `runtime_status`
 * alone: "Building the runtime…" only when the server says an image is being
 * built; a status left over from the previous run (stopped, or any other id
 * that is not a start-up step) reads as a plain start; a ready runtime whose
 * loop has not reported RUNNING yet reads as connecting.
 */
export function startingText(runtimeStatus: string | null | undefined): string {
  if (runtimeStatus === "STATUS$READY") return "Connecting…";
  if (runtimeStatus && RUNTIME_PROGRESS.has(runtimeStatus)) return STATUS_TEXT[runtimeStatus] ?? STARTING_TEXT;
  return STARTING_TEXT;
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
