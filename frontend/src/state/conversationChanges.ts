/**
 * A same-tab signal that the conversation list changed (created, renamed,
 * stopped, started, deleted), so every list on screen (sidebar, home,
 * overview) re-reads it at once instead of at its next poll. A list that
 * already applied its own change names itself as the origin and skips it.
 */
import { useEffect, useRef } from "react";

const EVENT = "openhands:conversations-changed";

export function announceConversationsChanged(origin?: string): void {
  window.dispatchEvent(new CustomEvent<string | undefined>(EVENT, { detail: origin }));
}

export function useConversationsChanged(callback: () => void, self?: string): void {
  const latest = useRef(callback);
  latest.current = callback;
  useEffect(() => {
    const listener = (event: Event) => {
      if (self !== undefined && (event as CustomEvent<string | undefined>).detail === self) return;
      latest.current();
    };
    window.addEventListener(EVENT, listener);
    return () => window.removeEventListener(EVENT, listener);
  }, [self]);
}
