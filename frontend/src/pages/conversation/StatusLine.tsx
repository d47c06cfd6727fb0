/**
 * Progress text while the conversation starts and the runtime comes up,
 * connection trouble, and runtime errors. Each status update replaces the
 * text, so the user sees progress rather than a frozen spinner.
 */
import type { ConversationInfo } from "../../api/types";
import { runtimeStatusText, startingText, statusText } from "../../state/statusText";
import type { ConversationSocketApi } from "../../socket/useConversationSocket";
import type { ConversationInfoState } from "./useConversationInfo";

const STARTING_LINE = startingText(null);

interface Line {
  kind: "progress" | "error" | "info";
  text: string;
  action?: { label: string; run(): void };
}

/** The sandbox failed before the agent could start (e.g. its container exited at once). */
export function runtimeFailed(conversation: ConversationInfo | null | undefined): boolean {
  return Boolean(conversation?.runtime_status?.startsWith("STATUS$ERROR"));
}

function currentLine(
  conversation: ConversationInfo | null | undefined,
  info: ConversationInfoState,
  socket: ConversationSocketApi,
): Line | null {
  const { state, connection, connectionError } = socket;
  if (connectionError) {
    return {
      kind: "error",
      text: statusText(connectionError.msgId, connectionError.message),
      action: { label: "Reconnect", run: socket.reconnect },
    };
  }
  // What the user just asked for comes first: the socket drops while a stop is under way.
  if (info.pending === "stopping") return { kind: "progress", text: "Stopping the conversation…" };
  if (info.pending === "starting") return { kind: "progress", text: STARTING_LINE };
  if (info.error) return { kind: "error", text: info.error };
  if (conversation === undefined) return { kind: "progress", text: "Loading the conversation…" };
  if (!conversation) return null;
  if (conversation.status === "STOPPED") {
    return {
      kind: "info",
      text: "Stopped. The sandbox is shut down; start the conversation to continue.",
      action: { label: "Start", run: () => void info.start() },
    };
  }
  if (conversation.status === "STARTING" || connection === "idle") {
    if (runtimeFailed(conversation)) {
      return {
        kind: "error",
        text: `${runtimeStatusText(conversation.runtime_status)} Restart the conversation to try again.`,
        action: { label: "Restart", run: () => void info.restart() },
      };
    }
    return { kind: "progress", text: startingText(conversation.runtime_status) };
  }
  if (connection === "disconnected") {
    return { kind: "error", text: "Disconnected from the server.", action: { label: "Reconnect", run: socket.reconnect } };
  }
  if (connection === "reconnecting") return { kind: "progress", text: "Reconnecting…" };
  if (connection === "connecting") return { kind: "progress", text: "Connecting…" };

  const status = state.status;
  const loading = state.agentState === null || state.agentState === "loading" || state.agentState === "init";
  if (status) {
    const fresh = status.atEventId >= state.lastEventId;
    if (status.type === "error" && (fresh || state.agentState === "error")) {
      return { kind: "error", text: statusText(status.id, status.message) };
    }
    if (status.type === "info" && (loading || fresh) && status.id !== "STATUS$READY") {
      return { kind: "progress", text: statusText(status.id, status.message) };
    }
  }
  if (loading) return { kind: "progress", text: "Waiting for the agent to start…" };
  if (state.agentState === "running") return { kind: "progress", text: "The agent is working…" };
  return null;
}

export function StatusLine({
  conversation,
  info,
  socket,
}: {
  conversation: ConversationInfo | null | undefined;
  info: ConversationInfoState;
  socket: ConversationSocketApi;
}) {
  const line = currentLine(conversation, info, socket);
  if (!line) return null;
  return (
    <div
      className={`status-line status-line--${line.kind}`}
      role={line.kind === "error" ? "alert" : "status"}
      aria-live="polite"
      data-testid="status-line"
    >
      {line.kind === "progress" && <span className="pulse" aria-hidden="true" />}
      <span className="status-line__text">{line.text}</span>
      {line.action && (
        <button type="button" className="button button--small" data-testid="status-line-action" onClick={line.action.run}>
          {line.action.label}
        </button>
      )}
    </div>
  );
}
