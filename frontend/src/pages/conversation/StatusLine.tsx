/**
 * The conversation's one status line: start-up phases, connection trouble,
 * runtime errors and, once the agent runs, what the agent is doing, each as a
 * sentence. It replaces the raw state badge: the agent state stays readable
 * for tests and styles as `data-state` on the line's dot.
 */
import { useTranslation } from "../../i18n/useTranslation";
import type { AgentState, ConversationInfo } from "../../api/types";
import { i18n } from "../../i18n";
import {
  agentIsBusy,
  agentStateSentence,
  phaseText,
  runtimeStatusText,
  startingText,
  statusText,
} from "../../state/statusText";
import type { ConversationSocketApi } from "../../socket/useConversationSocket";
import type { ConversationInfoState } from "./useConversationInfo";

export interface Line {
  kind: "progress" | "error" | "info";
  text: string;
  action?: { label: string; run(): void };
}

/** The sandbox failed before the agent could start (e.g. its container exited at once). */
export function runtimeFailed(conversation: ConversationInfo | null | undefined): boolean {
  return Boolean(conversation?.runtime_status?.startsWith("STATUS$ERROR"));
}

/**
 * The agent state the page shows: `stopped` for a stopped conversation,
 * `error` when the sandbox failed before any state arrived, else the live
 * state (`loading` until the socket is live).
 */
export function shownAgentState(
  conversation: ConversationInfo | null | undefined,
  info: Pick<ConversationInfoState, "pending">,
  agentState: AgentState | null,
): AgentState {
  if (conversation?.status === "STOPPED" && info.pending === null) return "stopped";
  if (agentState === null && runtimeFailed(conversation)) return "error";
  return agentState ?? "loading";
}

/** A line about the conversation, its sandbox or the connection; null when only the agent's state is left to say. */
function phaseLine(
  conversation: ConversationInfo | null | undefined,
  info: ConversationInfoState,
  socket: ConversationSocketApi,
): Line | null {
  const { state, connection, connectionError } = socket;
  if (connectionError) {
    return {
      kind: "error",
      text: statusText(connectionError.msgId, connectionError.message),
      action: { label: i18n.t("conversation:statusLine.reconnect"), run: socket.reconnect },
    };
  }
  // What the user just asked for comes first: the socket drops while a stop is under way.
  if (info.pending === "stopping") return { kind: "progress", text: phaseText("stopping") };
  if (info.pending === "starting") {
    return { kind: "progress", text: conversation?.status === "STOPPED" ? phaseText("restarting") : phaseText("starting") };
  }
  if (info.error) return { kind: "error", text: info.error };
  if (conversation === undefined) return { kind: "progress", text: phaseText("loadingConversation") };
  if (!conversation) return null;
  if (conversation.status === "STOPPED") {
    return { kind: "info", text: phaseText("stopped"), action: { label: i18n.t("conversation:statusLine.start"), run: () => void info.start() } };
  }
  if (conversation.status === "STARTING" || connection === "idle") {
    if (runtimeFailed(conversation)) {
      return {
        kind: "error",
        text: i18n.t("status:phase.failedRetry", { reason: runtimeStatusText(conversation.runtime_status) }),
        action: { label: i18n.t("conversation:statusLine.restart"), run: () => void info.restart() },
      };
    }
    return { kind: "progress", text: startingText(conversation.runtime_status) };
  }
  if (connection === "disconnected") {
    return { kind: "error", text: phaseText("disconnected"), action: { label: i18n.t("conversation:statusLine.reconnect"), run: socket.reconnect } };
  }
  if (connection === "reconnecting") return { kind: "progress", text: phaseText("reconnecting") };
  if (connection === "connecting") return { kind: "progress", text: phaseText("connecting") };

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
  if (loading) return { kind: "progress", text: phaseText("waitingForAgent") };
  return null;
}

/** What the line says: a phase when there is one, else the agent's state in words. */
export function currentLine(
  conversation: ConversationInfo | null | undefined,
  info: ConversationInfoState,
  socket: ConversationSocketApi,
  agentState: AgentState,
): Line {
  const phase = phaseLine(conversation, info, socket);
  if (phase) return phase;
  // An error's reason is its own event in the chat; the line only names the state.
  if (agentState === "error") return { kind: "error", text: agentStateSentence("error") };
  return { kind: agentIsBusy(agentState) ? "progress" : "info", text: agentStateSentence(agentState) };
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
  // Subscribes to language changes: the sentences below are read from the shared instance.
  useTranslation("conversation");
  const agentState = shownAgentState(conversation, info, socket.state.agentState);
  const line = currentLine(conversation, info, socket, agentState);
  return (
    <div
      className={`status-line status-line--${line.kind}`}
      role={line.kind === "error" ? "alert" : "status"}
      aria-live="polite"
      data-testid="status-line"
    >
      <span
        className={`status-dot status-dot--${agentState}${line.kind === "progress" ? " status-dot--busy" : ""}`}
        data-testid="agent-status"
        data-state={agentState}
        aria-hidden="true"
      />
      <span className="status-line__text">{line.text}</span>
      {line.action && (
        <button type="button" className="button button--small" data-testid="status-line-action" onClick={line.action.run}>
          {line.action.label}
        </button>
      )}
    </div>
  );
}
