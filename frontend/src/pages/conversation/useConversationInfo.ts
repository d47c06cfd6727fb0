/**
 * The conversation's REST record, kept fresh much as server-api.md §9.5
 * describes: a STOPPED conversation is started once (when the page opens it,
 * not after the user stopped it here) and anything settled is polled every 30 s. STARTING is polled from 0.5 s, backing off to 3 s, so the
 * socket opens soon after the sandbox is up (the reference waits up to 3 s)
 * while a slow start still costs the server one request every 3 s.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { getConversation, startConversation, stopConversation } from "../../api/conversations";
import type { ConversationInfo, ConversationStatus, ProviderType } from "../../api/types";

import { FAST_POLL_MS, startingPollDelay } from "../../state/startingPoll";

export { startingPollDelay };

const SLOW_POLL_MS = 30000;

export interface ConversationInfoState {
  /** undefined while loading; null when the server says it does not exist. */
  conversation: ConversationInfo | null | undefined;
  error: string | null;
  refresh(): void;
  /** A stop or start the user asked for is under way. */
  pending: "stopping" | "starting" | null;
  /** Starts the agent loop again (after it was stopped). */
  start(): Promise<void>;
  /** Stops the agent loop and its sandbox (POST …/stop); the conversation is kept. */
  stop(): Promise<void>;
  /** Stop, then start: for a sandbox that failed. */
  restart(): Promise<void>;
}

/** The conversation as the server's answer to a stop or start says it now is. */
function withStatus(
  current: ConversationInfo | null | undefined,
  status: ConversationStatus | null | undefined,
): ConversationInfo | null | undefined {
  if (!current || !status) return current;
  // The runtime status belongs to the previous run once the loop stopped or restarts.
  return { ...current, status, runtime_status: status === "RUNNING" ? current.runtime_status : null };
}

/** `ready` holds the first fetch until the settings (and so the providers) are known. */
export function useConversationInfo(
  id: string,
  providers: readonly ProviderType[],
  ready: boolean,
): ConversationInfoState {
  const [conversation, setConversation] = useState<ConversationInfo | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<"stopping" | "starting" | null>(null);
  const [tick, setTick] = useState(0);
  const autoStarted = useRef(false);
  // Consecutive fetches that found the conversation STARTING.
  const startingPolls = useRef(0);
  const providersRef = useRef(providers);
  providersRef.current = providers;

  const refresh = useCallback(() => setTick((n) => n + 1), []);

  const start = useCallback(async () => {
    setPending("starting");
    try {
      const response = await startConversation(id, [...providersRef.current]);
      setConversation((current) => withStatus(current, response.conversation_status ?? "STARTING"));
      setError(null);
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
    } finally {
      setPending(null);
    }
    startingPolls.current = 0;
    refresh();
  }, [id, refresh]);

  const stop = useCallback(async () => {
    // A stopped conversation is started once when the page opens it, never after the user stopped it.
    autoStarted.current = true;
    setPending("stopping");
    try {
      await stopConversation(id);
      // Whatever it was before, the loop is gone now: no need to wait for the next fetch.
      setConversation((current) => withStatus(current, "STOPPED"));
      setError(null);
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
    } finally {
      setPending(null);
    }
    refresh();
  }, [id, refresh]);

  const restart = useCallback(async () => {
    await stop();
    await start();
  }, [stop, start]);

  useEffect(() => {
    autoStarted.current = false;
    startingPolls.current = 0;
    setConversation(undefined);
  }, [id]);

  useEffect(() => {
    if (!ready) return;
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    getConversation(id).then(
      (info) => {
        if (cancelled) return;
        setConversation(info);
        setError(null);
        if (!info) return;
        if (info.status === "STOPPED" && !autoStarted.current) {
          autoStarted.current = true;
          void start();
          return;
        }
        if (info.status === "STARTING") {
          timer = setTimeout(refresh, startingPollDelay(startingPolls.current++));
        } else {
          startingPolls.current = 0;
          timer = setTimeout(refresh, SLOW_POLL_MS);
        }
      },
      (reason: unknown) => {
        if (cancelled) return;
        setError(reason instanceof Error ? reason.message : String(reason));
        timer = setTimeout(refresh, FAST_POLL_MS);
      },
    );
    return () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
    };
  }, [id, tick, refresh, start, ready]);

  return { conversation, error, refresh, pending, start, stop, restart };
}

/** The socket may open once the loop runs (§7.1); a null runtime_status is tolerated. */
export function socketCanConnect(conversation: ConversationInfo | null | undefined): boolean {
  return !!conversation && conversation.status === "RUNNING" && conversation.runtime_status !== "STATUS$STOPPED";
}
