/**
 * The newest conversations, kept fresh for lists that stay on screen (the
 * sidebar, the overview): re-read every 3 s while one is starting (its status
 * moves on its own), every 10 s otherwise, at once when this tab changed one
 * (announceConversationsChanged), and never while the tab is hidden.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { listConversations } from "../api/conversations";
import type { ConversationInfo } from "../api/types";
import { useConversationsChanged } from "../state/conversationChanges";

export const BUSY_POLL_MS = 3000;
export const IDLE_POLL_MS = 10000;

export interface ConversationListState {
  /** null until the first answer. */
  conversations: ConversationInfo[] | null;
  error: string | null;
  refresh(): void;
}

export function pollDelay(conversations: readonly ConversationInfo[] | null, busyWhileRunning: boolean): number {
  const busy = (conversations ?? []).some(
    (c) => c.status === "STARTING" || (busyWhileRunning && c.status === "RUNNING"),
  );
  return busy ? BUSY_POLL_MS : IDLE_POLL_MS;
}

/** `busyWhileRunning`: poll fast while any conversation runs, too (the overview follows them). */
export function useConversationList(limit: number, busyWhileRunning = false): ConversationListState {
  const [conversations, setConversations] = useState<ConversationInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((n) => n + 1), []);
  const latest = useRef(conversations);
  latest.current = conversations;

  useConversationsChanged(refresh);

  useEffect(() => {
    const onVisible = () => {
      if (document.visibilityState === "visible") refresh();
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => document.removeEventListener("visibilitychange", onVisible);
  }, [refresh]);

  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const schedule = (list: ConversationInfo[] | null) => {
      // A hidden tab is not polled; it re-reads on becoming visible.
      if (document.visibilityState === "hidden") return;
      timer = setTimeout(refresh, pollDelay(list, busyWhileRunning));
    };
    listConversations(null, limit).then(
      (page) => {
        if (cancelled) return;
        setConversations(page.results);
        setError(null);
        schedule(page.results);
      },
      (reason: unknown) => {
        if (cancelled) return;
        setError(reason instanceof Error ? reason.message : String(reason));
        schedule(latest.current);
      },
    );
    return () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
    };
  }, [tick, limit, refresh, busyWhileRunning]);

  return { conversations, error, refresh };
}
