/**
 * Conversation view state fed by the socket: a reducer plus a frame-sized
 * batch buffer, so bursts (replay) are folded in one dispatch per frame.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
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
  send(action: UserAction): boolean;
  reconnect(): void;
  dismissNotice(key: number): void;
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

/**
 * Opens the socket while `target` is non-null. `onRefused` runs after a
 * refused connect or a server-side disconnect (the page re-fetches the
 * conversation, §9.8).
 */
export function useConversationSocket(
  target: SocketTarget | null,
  onRefused?: () => void,
): ConversationSocketApi {
  const [state, dispatch] = useReducer(conversationReducer, initialConversationState);
  const [connection, setConnection] = useState<ConnectionStatus>("idle");
  const [connectionError, setConnectionError] = useState<ConnectionError | null>(null);
  const socketRef = useRef<ConversationSocket | null>(null);
  const latestIdRef = useRef(-1);
  const onRefusedRef = useRef(onRefused);
  onRefusedRef.current = onRefused;

  const conversationId = target?.conversationId ?? null;
  // The socket depends on the target's identity, not on the object.
  const targetKey = target
    ? [target.conversationId, target.url ?? "", target.sessionApiKey ?? "", target.providers.join(",")].join("|")
    : null;
  const targetRef = useRef(target);
  targetRef.current = target;

  // A different conversation starts from a clean slate.
  useEffect(() => {
    latestIdRef.current = -1;
    dispatch({ type: "reset" });
  }, [conversationId]);

  useEffect(() => {
    const current = targetRef.current;
    if (!targetKey || !current) {
      setConnection("idle");
      return;
    }
    let buffer: unknown[] = [];
    let scheduled = false;
    let closed = false;
    const flush = () => {
      scheduled = false;
      if (closed || buffer.length === 0) return;
      const payloads = buffer;
      buffer = [];
      dispatch({ type: "received", payloads });
    };

    setConnection("connecting");
    setConnectionError(null);
    const socket = openConversationSocket(current, () => latestIdRef.current, {
      onPayload(payload) {
        const id = (payload as { id?: unknown } | null)?.id;
        if (typeof id === "number" && id > latestIdRef.current) latestIdRef.current = id;
        buffer.push(payload);
        if (!scheduled) {
          scheduled = true;
          scheduleFrame(flush);
        }
      },
      onConnect() {
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
      closed = true;
      flush();
      socket.close();
      socketRef.current = null;
    };
  }, [targetKey]);

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

  return { state, connection, connectionError, send, reconnect, dismissNotice };
}
