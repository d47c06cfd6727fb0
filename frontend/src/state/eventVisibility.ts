/** Which events the chat shows (hidden, null and plain state events are not). */
import type { OhEvent } from "../api/types";

export function isChatVisible(event: OhEvent): boolean {
  if ("action" in event) {
    if (event.action === "null") return false;
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
