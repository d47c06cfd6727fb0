/** Which events the chat shows (hidden, null and plain state events are not). */
import type { OhEvent } from "../api/types";

/** Environment observations the server pushes live, relabelled as the agent's (server-api.md §7.5). */
const LIVE_ENVIRONMENT_OBSERVATIONS: ReadonlySet<string> = new Set(["run", "agent_state_changed", "recall", "error"]);

/**
 * An event as the chat keeps it, whichever way it came, or null to drop it.
 *
 * The same event reaches the page in three forms: pushed live (environment
 * events filtered and relabelled `agent`, §7.5), replayed on connect (stored
 * dicts unchanged, recall actions skipped, §7.4) and fetched over REST (stored
 * dicts unchanged, nothing skipped). A page that watched a conversation live
 * and the same page after a reload must show the same chat, so only what all
 * three deliver is kept: environment events the live push leaves out are
 * dropped, the others take the `agent` label, and recall actions are dropped.
 */
export function asDelivered(event: OhEvent): OhEvent | null {
  if ("action" in event) {
    if (event.action === "null" || event.action === "recall") return null;
  } else if (event.observation === "null") {
    return null;
  }
  if (event.source !== "environment") return event;
  if (!("observation" in event) || !LIVE_ENVIRONMENT_OBSERVATIONS.has(event.observation)) return null;
  return { ...event, source: "agent" };
}

export function isChatVisible(event: OhEvent): boolean {
  if ("action" in event) {
    if (event.action === "null" || event.action === "recall") return false;
    if (event.action === "run" && event.args.hidden) return false;
    return true;
  }
  switch (event.observation) {
    case "null":
      return false;
    case "run":
      return !event.extras.hidden;
    case "agent_state_changed":
      // The badge shows the state; only an error with a reason is worth a line.
      return (event.extras.agent_state === "error" || event.extras.agent_state === "rate_limited") && !!event.extras.reason;
    default:
      return true;
  }
}

/** `event-{type}`: the action or observation type string. */
export function eventType(event: OhEvent): string {
  return "action" in event ? event.action : event.observation;
}
