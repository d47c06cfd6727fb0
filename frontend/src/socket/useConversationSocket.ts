/**
 * Conversation view state, fed from two sides into one reducer:
 *
 * 1. the stored history over REST, fetched as soon as the conversation is
 *    known, so it shows while the conversation is still STOPPED or STARTING;
 * 2. the socket, opened once the loop runs and the history is in. Its
 *    handshake carries the last event id already held, so the server replays
 *    only what came after (server-api.md §7.2) and nothing crosses the wire twice.
 *
 * Socket payloads are buffered and folded in one dispatch per frame, so bursts
 * (a replay) cost one render.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { loadEventHistory, type EventPages } from "../api/eventHistory";
import type { UserAction } from "../api/types";
import {
  conversationReducer,
  initialConversationState,
  type ConversationState,
} from "../state/conversationReducer";
import { openConversationSocket, type ConversationSocket, type SocketTarget } from "./conversationSocket";

export type ConnectionStatus = "idle" | "connecting" | "connected" | "reconnecting" | "disconnected";

export interface ConnectionError {
  message: string;
  msgId: string | null;
}

export interface ConversationSocketApi {
  state: ConversationState;
  connection: ConnectionStatus;
  connectionError: ConnectionError | null;
  /** The stored history has not arrived yet (or is still being fetched). */
  historyLoading: boolean;
  send(action: UserAction): boolean;
  reconnect(): void;
  dismissNotice(key: number): void;
}

export interface ConversationFeed {
  conversationId: string;
  /** The per-conversation routes, once the conversation is known (null before). */
  history: EventPages | null;
  /** Where the socket connects, once the loop runs (null: no socket). */
  socket: SocketTarget | null;
  /** Runs after a refused connect or a server-side disconnect (the page re-fetches the conversation, §9.8). */
  onRefused?: () => void;
}

/** Errors the real frontend does not surface (transport noise while retrying). */
const QUIET_ERRORS = new Set(["websocket error", "timeout"]);

function scheduleFrame(callback: () => void): void {
  if (typeof requestAnimationFrame === "function" && document.visibilityState === "visible") {
    requestAnimationFrame(callback);
  } else {
    setTimeout(callback, 16);
  }
}

function idOf(payload: unknown): number | null {
  const id = (payload as { id?: unknown } | null)?.id;
  return typeof id === "number" ? id : null;
}

export function useConversationSocket({ conversationId, history, socket: target, onRefused }: ConversationFeed): ConversationSocketApi {
  const [state, dispatch] = useReducer(conversationReducer, initialConversationState);
  const [connection, setConnection] = useState<ConnectionStatus>("idle");
  const [connectionError, setConnectionError] = useState<ConnectionError | null>(null);
  // The conversation whose history fetch has settled (loaded or failed).
  const [historySettled, setHistorySettled] = useState<string | null>(null);
  const socketRef = useRef<ConversationSocket | null>(null);
  // The highest event id held: the socket resumes after it on every (re)connect.
  const latestIdRef = useRef(-1);
  const onRefusedRef = useRef(onRefused);
  onRefusedRef.current = onRefused;

  // History only from this conversation's routes (the page may still hold the previous one's).
  const historyApi = history && history.conversationId === conversationId ? history : null;
  const historyRef = useRef(historyApi);
  historyRef.current = historyApi;
  const hasHistoryApi = historyApi !== null;

  // The socket depends on the target's identity, not on the object.
  const targetKey = target
    ? [target.conversationId, target.url ?? "", target.sessionApiKey ?? "", target.providers.join(",")].join("|")
    : null;
  const targetRef = useRef(target);
  targetRef.current = target;
  // Connect only once the history is in, so the handshake can name the last event held.
  const socketKey = historySettled === conversationId ? targetKey : null;

  // A different conversation starts from a clean slate.
  useEffect(() => {
    latestIdRef.current = -1;
    setHistorySettled(null);
    dispatch({ type: "reset" });
  }, [conversationId]);

  useEffect(() => {
    const api = historyRef.current;
    if (!api) return;
    const controller = new AbortController();
    loadEventHistory(
      api,
      (events) => {
        if (!controller.signal.aborted) dispatch({ type: "received", payloads: events });
      },
      controller.signal,
    ).then(
      (latest) => {
        if (controller.signal.aborted) return;
        if (latest > latestIdRef.current) latestIdRef.current = latest;
        setHistorySettled(api.conversationId);
      },
      () => {
        if (controller.signal.aborted) return;
        // A page is missing: resume from scratch. The replay then brings every event again,
        // and the reducer drops the ones already held.
        controller.abort();
        setHistorySettled(api.conversationId);
      },
    );
    return () => controller.abort();
  }, [conversationId, hasHistoryApi]);

  useEffect(() => {
    const current = targetRef.current;
    if (!socketKey || !current) {
      setConnection("idle");
      // No socket (any more): e.g. the conversation was stopped. What the last run's socket
      // said is history now; a new socket (after a start) resumes after the last event held.
      dispatch({ type: "offline" });
      return;
    }
    let buffer: unknown[] = [];
    let connected = false;
    let scheduled = false;
    let closed = false;
    const flush = () => {
      scheduled = false;
      if (closed) return;
      // Both dispatches run in this one task, so React renders once.
      if (buffer.length > 0) {
        const payloads = buffer;
        buffer = [];
        dispatch({ type: "received", payloads });
      }
      if (connected) dispatch({ type: "live" });
    };
    const schedule = () => {
      if (!scheduled) {
        scheduled = true;
        scheduleFrame(flush);
      }
    };

    setConnection("connecting");
    setConnectionError(null);
    const socket = openConversationSocket(current, () => latestIdRef.current, {
      onPayload(payload) {
        const id = idOf(payload);
        if (id !== null && id > latestIdRef.current) latestIdRef.current = id;
        buffer.push(payload);
        schedule();
      },
      onConnect() {
        // The replay came just before this (socket.io delivers it first): same frame.
        connected = true;
        schedule();
        setConnection("connected");
        setConnectionError(null);
      },
      onDisconnect(_reason, willReconnect) {
        setConnection(willReconnect ? "reconnecting" : "disconnected");
        // The server closed the session (e.g. the loop was stopped): re-read the conversation.
        if (!willReconnect) onRefusedRef.current?.();
      },
      onConnectError(message, msgId) {
        if (QUIET_ERRORS.has(message)) {
          // Transport trouble: socket.io-client keeps retrying by itself.
          setConnection("reconnecting");
          return;
        }
        // A refusal from the server is final until the user or the page retries.
        setConnection("disconnected");
        setConnectionError({ message, msgId });
        onRefusedRef.current?.();
      },
    });
    socketRef.current = socket;
    return () => {
      flush();
      closed = true;
      socket.close();
      socketRef.current = null;
    };
  }, [socketKey]);

  const send = useCallback((action: UserAction) => {
    if (!socketRef.current) return false;
    socketRef.current.send(action);
    return true;
  }, []);

  const reconnect = useCallback(() => {
    setConnection("connecting");
    socketRef.current?.reconnect();
  }, []);

  const dismissNotice = useCallback((key: number) => dispatch({ type: "dismiss-notice", key }), []);

  const historyLoading = historySettled !== conversationId;
  return { state, connection, connectionError, historyLoading, send, reconnect, dismissNotice };
}
