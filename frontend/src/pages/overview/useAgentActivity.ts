/**
 * Follows one running conversation for the overview: its newest stored
 * events first (one REST page, newest first), then its socket, resumed after
 * the newest event held so nothing is replayed twice. Closed when the row goes.
 */
import { useEffect, useMemo, useReducer, useState } from "react";
import type { ConversationInfo, OhEvent, ProviderType } from "../../api/types";
import { WorkspaceApi } from "../../api/workspace";
import { openConversationSocket } from "../../socket/conversationSocket";
import { foldActivity, initialActivity, type AgentActivity } from "../../state/agentActivity";
import { socketCanConnect } from "../conversation/useConversationInfo";

/** Events per request (the route's largest page). */
const PAGE = 100;
/**
 * Pages read back at most while looking for the task's start (the newest user
 * message), which the step count needs; a task longer than this shows fewer steps.
 */
const MAX_PAGES = 5;

type Action = { type: "fold"; payloads: readonly unknown[] } | { type: "reset" };

function reducer(state: AgentActivity, action: Action): AgentActivity {
  return action.type === "reset" ? initialActivity : foldActivity(state, action.payloads);
}

export interface AgentFeed {
  activity: AgentActivity;
  live: boolean;
  /** The sandbox's runtime id, when the server names one. */
  runtimeId: string | null;
}

/**
 * Reads the newest events backwards, a page at a time, until the current
 * task's user message is in (or MAX_PAGES). Resolves to the newest id read.
 */
async function readBackToTaskStart(
  api: WorkspaceApi,
  signal: AbortSignal,
  fold: (events: readonly OhEvent[]) => void,
): Promise<number> {
  let newest = -1;
  let endId: number | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { events, has_more: hasMore } = await api.events({ reverse: true, limit: PAGE, end_id: endId }, signal);
    if (signal.aborted) throw new Error("aborted");
    fold(events);
    const ids = events.map((e) => (typeof e.id === "number" ? e.id : -1)).filter((n) => n >= 0);
    if (ids.length === 0) break;
    newest = Math.max(newest, ...ids);
    const foundTaskStart = events.some((e) => e.source === "user" && "action" in e && e.action === "message");
    const oldest = Math.min(...ids);
    if (foundTaskStart || !hasMore || oldest === 0) break;
    endId = oldest - 1;
  }
  return newest;
}

export function useAgentActivity(conversation: ConversationInfo, providers: readonly ProviderType[]): AgentFeed {
  const [activity, dispatch] = useReducer(reducer, initialActivity);
  // Which conversation's history is in, and the newest id it held (the socket resumes after it).
  const [historyReady, setHistoryReady] = useState<{ id: string; after: number } | null>(null);
  const [live, setLive] = useState(false);
  const [runtimeId, setRuntimeId] = useState<string | null>(null);
  const id = conversation.conversation_id;
  const canConnect = socketCanConnect(conversation);
  const { url, session_api_key: sessionApiKey } = conversation;
  const api = useMemo(
    () => new WorkspaceApi({ conversation_id: id, url, session_api_key: sessionApiKey }),
    [id, url, sessionApiKey],
  );
  const providerKey = providers.join(",");

  useEffect(() => {
    dispatch({ type: "reset" });
    setHistoryReady(null);
    const controller = new AbortController();
    readBackToTaskStart(api, controller.signal, (events) => dispatch({ type: "fold", payloads: events })).then(
      (newest) => setHistoryReady({ id, after: newest }),
      () => {
        // No history to show: the socket's replay still brings the latest state.
        if (!controller.signal.aborted) setHistoryReady({ id, after: -1 });
      },
    );
    return () => controller.abort();
  }, [api, id]);

  const resumeAfter = historyReady?.id === id ? historyReady.after : null;
  useEffect(() => {
    if (!canConnect || resumeAfter === null) {
      setLive(false);
      return;
    }
    // Replays resume after the newest event held, also on reconnects.
    let latest = resumeAfter;
    const socket = openConversationSocket(
      { conversationId: id, url, sessionApiKey, providers: providerKey ? providerKey.split(",") : [] },
      () => latest,
      {
        onPayload(payload) {
          const eventId = (payload as { id?: unknown } | null)?.id;
          if (typeof eventId === "number" && eventId > latest) latest = eventId;
          dispatch({ type: "fold", payloads: [payload] });
        },
        onConnect: () => setLive(true),
        onDisconnect: () => setLive(false),
        onConnectError: () => setLive(false),
      },
    );
    return () => {
      socket.close();
      setLive(false);
    };
  }, [canConnect, resumeAfter, id, url, sessionApiKey, providerKey]);

  useEffect(() => {
    if (!canConnect) return;
    const controller = new AbortController();
    api.config(controller.signal).then(
      (config) => setRuntimeId(config.runtime_id),
      () => undefined,
    );
    return () => controller.abort();
  }, [api, canConnect]);

  return { activity, live, runtimeId };
}
