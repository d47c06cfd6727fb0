/**
 * Every status the UI puts into words: runtime status ids (server-api.md §4,
 * §7.5), agent states and conversation statuses. The sentences live in these
 * tables only, so a translation layer can later replace them table by table,
 * and a new server id is one line in STATUS_TEXT (plus one in START_UP_STEPS
 * when it is a start-up step, e.g. the warm-pool phases).
 */
import type { AgentState, ConversationStatus } from "../api/types";

/** Runtime status ids → sentences. Unknown ids fall back to the server's message. */
const STATUS_TEXT: Record<string, string> = {
  // Start-up steps, in the order a sandbox goes through them.
  STATUS$BUILDING_RUNTIME: "Building the sandbox image…",
  STATUS$STARTING_RUNTIME: "Starting the sandbox…",
  STATUS$CLAIMING_WARM_RUNTIME: "Taking a sandbox that is already running…",
  STATUS$RESTARTING_RUNTIME: "Restarting this conversation's sandbox…",
  STATUS$RUNTIME_STARTED: "Sandbox started.",
  STATUS$SETTING_UP_WORKSPACE: "Setting up the repository…",
  STATUS$SETTING_UP_GIT_HOOKS: "Setting up git hooks…",
  STATUS$READY: "Ready.",
  // Later states and errors.
  STATUS$STOPPED: "The sandbox is stopped.",
  STATUS$ERROR: "The sandbox reported an error.",
  STATUS$ERROR_RUNTIME_DISCONNECTED: "The sandbox disconnected.",
  STATUS$ERROR_LLM_AUTHENTICATION: "The LLM provider rejected the API key. Check it in Settings.",
  STATUS$ERROR_LLM_SERVICE_UNAVAILABLE: "The LLM service is unavailable.",
  STATUS$ERROR_LLM_INTERNAL_SERVER_ERROR: "The LLM service had an internal error.",
  STATUS$ERROR_LLM_OUT_OF_CREDITS: "The LLM account is out of credits.",
  STATUS$ERROR_LLM_CONTENT_POLICY_VIOLATION: "The LLM refused the request (content policy).",
  CHAT_INTERFACE$AGENT_RATE_LIMITED_STOPPED_MESSAGE: "The agent was stopped after being rate limited.",
  STATUS$GIT_PROVIDER_AUTHENTICATION_ERROR: "The git provider rejected the token.",
  STATUS$LLM_RETRY: "Retrying the LLM request…",
  STATUS$ERROR_MEMORY: "The sandbox ran out of memory.",
  AGENT_ERROR$TOO_MANY_CONVERSATIONS:
    "Too many conversations at once. Send a message to reactivate this one.",
  CONFIGURATION$SETTINGS_NOT_FOUND: "No settings are stored yet. Configure a model in Settings.",
  CONVERSATION$NOT_FOUND: "This conversation does not exist.",
};

/**
 * The ids that are steps of a sandbox's start-up. Their wording depends on the
 * id alone: a build log line or a generic server message never turns a plain
 * start into "Building…", nor the other way round.
 */
const START_UP_STEPS: ReadonlySet<string> = new Set([
  "STATUS$BUILDING_RUNTIME",
  "STATUS$STARTING_RUNTIME",
  "STATUS$CLAIMING_WARM_RUNTIME",
  "STATUS$RESTARTING_RUNTIME",
  "STATUS$RUNTIME_STARTED",
  "STATUS$SETTING_UP_WORKSPACE",
  "STATUS$SETTING_UP_GIT_HOOKS",
  "STATUS$READY",
]);

/** Phases the UI itself knows about (no server id says them). */
export const PHASE_TEXT = {
  loadingConversation: "Loading the conversation…",
  starting: "Starting the sandbox…",
  restarting: "Restarting the sandbox…",
  connecting: "Connecting to the agent…",
  reconnecting: "Reconnecting…",
  disconnected: "Disconnected from the server.",
  stopping: "Stopping the conversation…",
  stopped: "Stopped. The sandbox is shut down; start the conversation to continue.",
  waitingForAgent: "Waiting for the agent to start…",
  retryAfterFailure: "Restart the conversation to try again.",
} as const;

/** Shown while a (re)started conversation has no runtime status yet, or a stale one. */
export const STARTING_TEXT = PHASE_TEXT.starting;

/**
 * Our wording for start-up steps. Otherwise prefer the server's own message
 * when it says more than the id (LLM retries carry "Retrying LLM request,
 * 2 / 5"); fall back to our wording, then the id.
 */
export function statusText(id: string | null | undefined, message?: string | null): string {
  const known = id ? STATUS_TEXT[id] : undefined;
  if (id && known && START_UP_STEPS.has(id)) return known;
  if (message && message !== id) return message;
  return known ?? message ?? id ?? "";
}

export function runtimeStatusText(id: string | null | undefined): string {
  return (id && STATUS_TEXT[id]) || id || "";
}

export function isStartUpStep(id: string | null | undefined): boolean {
  return !!id && START_UP_STEPS.has(id);
}

/**
 * Progress text for a conversation that is STARTING, from its `runtime_status`
 * alone: building only when the server says an image is being built; a status
 * left over from the previous run (stopped, or any id that is not a start-up
 * step) reads as a plain start; a ready sandbox whose loop has not reported
 * RUNNING yet reads as connecting.
 */
export function startingText(runtimeStatus: string | null | undefined): string {
  if (runtimeStatus === "STATUS$READY") return PHASE_TEXT.connecting;
  if (runtimeStatus && START_UP_STEPS.has(runtimeStatus)) return STATUS_TEXT[runtimeStatus] ?? STARTING_TEXT;
  return STARTING_TEXT;
}

/** Short names of agent states (badges, lists). */
export const AGENT_STATE_TEXT: Record<AgentState, string> = {
  loading: "Starting",
  init: "Starting",
  running: "Running",
  awaiting_user_input: "Waiting for you",
  paused: "Paused",
  stopped: "Stopped",
  finished: "Finished",
  rejected: "Rejected",
  error: "Error",
  rate_limited: "Rate limited",
  awaiting_user_confirmation: "Needs confirmation",
  user_confirmed: "Confirmed",
  user_rejected: "Rejected by you",
};

/** What the agent is doing, as the status line says it. */
export const AGENT_STATE_SENTENCE: Record<AgentState, string> = {
  loading: "Starting the agent…",
  init: "Starting the agent…",
  running: "Running the task…",
  awaiting_user_input: "Waiting for your next message.",
  paused: "Paused. Resume to let the agent carry on.",
  stopped: "The agent stopped. Send a message to give it a new task.",
  finished: "Task finished. Send a message to continue.",
  rejected: "The agent rejected the task.",
  error: "The agent ran into an error.",
  rate_limited: "Rate limited by the LLM provider; the agent will retry…",
  awaiting_user_confirmation: "Waiting for you to confirm the next action.",
  user_confirmed: "Confirmed. The agent carries on…",
  user_rejected: "Rejected. The agent carries on…",
};

/** States in which the agent is busy (the status line pulses). */
const BUSY_STATES: ReadonlySet<AgentState> = new Set(["loading", "init", "running", "rate_limited", "user_confirmed", "user_rejected"]);

export function agentIsBusy(state: AgentState | null): boolean {
  return state === null || BUSY_STATES.has(state);
}

/** A conversation as listed (sidebar, overview), from its REST record alone. */
export function conversationStatusText(status: ConversationStatus, runtimeStatus: string | null | undefined): string {
  switch (status) {
    case "STARTING":
      return startingText(runtimeStatus);
    case "RUNNING":
      return runtimeStatus?.startsWith("STATUS$ERROR") ? runtimeStatusText(runtimeStatus) : "Running";
    case "STOPPED":
      return "Stopped";
    case "ARCHIVED":
      return "Archived";
    case "ERROR":
      return "Failed";
  }
}

/** States in which the runtime-backed panels can be used (useRuntimeIsReady). */
export function runtimeIsReady(state: AgentState | null): boolean {
  return state !== null && state !== "loading" && state !== "init" && state !== "error";
}
