/**
 * Socket.IO client for one conversation (server-api.md §7).
 *
 * Wraps socket.io-client so the rest of the app never sees the library:
 * it builds the handshake query, resumes from the last event id on every
 * reconnect, and reports connection changes through plain callbacks.
 */
import { io, type Socket } from "socket.io-client";
import type { ConnectErrorData, SocketQuery, UserAction } from "../api/types";

export interface SocketTarget {
  conversationId: string;
  /** `conversation.url`; absolute only for nested/remote managers. */
  url: string | null;
  sessionApiKey: string | null;
  providers: readonly string[];
}

export interface SocketHandlers {
  onPayload(payload: unknown): void;
  onConnect(): void;
  /** `willReconnect` is false after a server-side disconnect, which the client does not retry. */
  onDisconnect(reason: string, willReconnect: boolean): void;
  onConnectError(message: string, msgId: string | null): void;
}

export interface ConversationSocket {
  send(action: UserAction): void;
  /** Reconnects after a server-side disconnect or a refused connect. */
  reconnect(): void;
  close(): void;
}

export function socketQuery(target: SocketTarget, latestEventId: number): SocketQuery {
  const query: SocketQuery = {
    conversation_id: target.conversationId,
    latest_event_id: String(latestEventId),
    providers_set: target.providers.join(","),
  };
  if (target.sessionApiKey) query.session_api_key = target.sessionApiKey;
  return query;
}

/** Same origin and `/socket.io`, unless the conversation lives on another host. */
export function socketEndpoint(url: string | null, origin: string): { origin: string; path: string } {
  if (url && /^https?:\/\//i.test(url)) {
    const parsed = new URL(url);
    const cut = parsed.pathname.indexOf("/api/conversations");
    const prefix = cut >= 0 ? parsed.pathname.slice(0, cut) : "";
    return { origin: parsed.origin, path: `${prefix}/socket.io` };
  }
  return { origin, path: "/socket.io" };
}

export function openConversationSocket(
  target: SocketTarget,
  getLatestEventId: () => number,
  handlers: SocketHandlers,
): ConversationSocket {
  const endpoint = socketEndpoint(target.url, window.location.origin);
  const socket: Socket = io(endpoint.origin, {
    path: endpoint.path,
    transports: ["websocket"],
    query: { ...socketQuery(target, getLatestEventId()) },
  });

  // Every (re)connect must resume after the last event this client has seen.
  socket.io.on("reconnect_attempt", () => {
    socket.io.opts.query = { ...socketQuery(target, getLatestEventId()) };
  });

  socket.on("connect", () => handlers.onConnect());
  socket.on("oh_event", (payload: unknown) => handlers.onPayload(payload));
  socket.on("disconnect", (reason) => {
    handlers.onDisconnect(reason, reason !== "io server disconnect" && reason !== "io client disconnect");
  });
  socket.on("connect_error", (error: Error & { data?: ConnectErrorData }) => {
    const msgId = typeof error.data?.msg_id === "string" ? error.data.msg_id : null;
    handlers.onConnectError(error.message, msgId);
  });

  return {
    send(action) {
      socket.emit("oh_user_action", action);
    },
    reconnect() {
      socket.io.opts.query = { ...socketQuery(target, getLatestEventId()) };
      socket.connect();
    },
    close() {
      socket.removeAllListeners();
      socket.io.removeAllListeners();
      socket.disconnect();
    },
  };
}
