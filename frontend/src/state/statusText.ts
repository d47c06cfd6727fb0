/**
 * Every status the UI puts into words: runtime status ids (server-api.md §4,
 * §7.5), agent states and conversation statuses. The sentences live in the
 * `conversation` namespace (i18n/locales/<lang>/conversation.json): a new server
 * id is one key under `status` in every language (plus one line in START_UP_STEPS
 * when it is a start-up step, e.g. the warm-pool phases). The functions read the
 * current language, so a component re-renders on a language change through its
 * own useTranslation().
 */
import type { AgentState, ConversationStatus } from "../api/types";
import { i18n } from "../i18n";
// English lists which ids have a sentence; it is in the first bundle anyway.
import statusEn from "../i18n/locales/en/status.json";

/** Runtime status ids with a sentence of ours (status:status.<id>). Unknown ids fall back to the server's message. */
type StatusId = keyof typeof statusEn.status;

function knownStatus(id: string | null | undefined): string | undefined {
  return id && Object.hasOwn(statusEn.status, id) ? i18n.t(`status:status.${id as StatusId}`) : undefined;
}

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
export type Phase = keyof typeof statusEn.phase;

export function phaseText(phase: Phase): string {
  return i18n.t(`status:phase.${phase}`);
}

/**
 * Our wording for start-up steps. Otherwise prefer the server's own message
 * when it says more than the id (LLM retries carry "Retrying LLM request,
 * 2 / 5"); fall back to our wording, then the id.
 */
export function statusText(id: string | null | undefined, message?: string | null): string {
  const known = knownStatus(id);
  if (id && known && START_UP_STEPS.has(id)) return known;
  if (message && message !== id) return message;
  return known ?? message ?? id ?? "";
}

export function runtimeStatusText(id: string | null | undefined): string {
  return knownStatus(id) || id || "";
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
  if (runtimeStatus === "STATUS$READY") return phaseText("connecting");
  if (runtimeStatus && START_UP_STEPS.has(runtimeStatus)) return knownStatus(runtimeStatus) ?? phaseText("starting");
  return phaseText("starting");
}

/** Short name of an agent state (badges, lists). */
export function agentStateText(state: AgentState): string {
  return i18n.t(`status:agentState.${state}`);
}

/** What the agent is doing, as the status line says it. */
export function agentStateSentence(state: AgentState): string {
  return i18n.t(`status:agentSentence.${state}`);
}

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
      return runtimeStatus?.startsWith("STATUS$ERROR")
        ? runtimeStatusText(runtimeStatus)
        : i18n.t("status:listStatus.running");
    case "STOPPED":
      return i18n.t("status:listStatus.stopped");
    case "ARCHIVED":
      return i18n.t("status:listStatus.archived");
    case "ERROR":
      return i18n.t("status:listStatus.failed");
  }
}

/** States in which the runtime-backed panels can be used (useRuntimeIsReady). */
export function runtimeIsReady(state: AgentState | null): boolean {
  return state !== null && state !== "loading" && state !== "init" && state !== "error";
}
