/**
 * Optimistic echo of the task typed on Home: it is kept per conversation in
 * sessionStorage (a reload keeps it) and shown as the first message until the
 * server's own copy of the user's message arrives.
 */
import type { OhEvent } from "../api/types";

const KEY = "openhands:pending-task:";

export function rememberPendingTask(conversationId: string, task: string): void {
  try {
    sessionStorage.setItem(KEY + conversationId, task);
  } catch {
    // Storage full or disabled: the echo is a nicety, the task itself went to the server.
  }
}

export function pendingTask(conversationId: string): string | null {
  try {
    return sessionStorage.getItem(KEY + conversationId);
  } catch {
    return null;
  }
}

export function forgetPendingTask(conversationId: string): void {
  try {
    sessionStorage.removeItem(KEY + conversationId);
  } catch {
    // Nothing stored, nothing to forget.
  }
}

/** The server has the user's first message once any user message event is held. */
export function hasUserMessage(events: readonly OhEvent[]): boolean {
  return events.some((event) => event.source === "user" && "action" in event && event.action === "message");
}
