/**
 * Stop / start of the whole conversation (its agent loop and sandbox), through
 * POST …/stop and …/start. Not the agent's own stop (AgentControls), which only
 * ends the current task and keeps the sandbox.
 */
import type { ConversationStatus } from "../../api/types";

export type LifecycleAction = "stop" | "start";

/** Which of the two applies to a conversation in `status` (null: neither, e.g. unknown yet). */
export function lifecycleAction(status: ConversationStatus | null | undefined): LifecycleAction | null {
  if (status === "RUNNING" || status === "STARTING") return "stop";
  if (status === "STOPPED" || status === "ERROR") return "start";
  return null;
}

interface Props {
  status: ConversationStatus | null | undefined;
  /** A stop or start under way: the button waits for it. */
  pending: "stopping" | "starting" | null;
  onStop(): void;
  onStart(): void;
  /** Named in the accessible label (the list has many). */
  title?: string;
  /** "Stop" / "Start" instead of "… conversation" (on a conversation's card). */
  short?: boolean;
}

export function LifecycleButton({ status, pending, onStop, onStart, title, short = false }: Props) {
  const action = lifecycleAction(status);
  if (!action) return null;
  const busy = pending !== null;
  const label = pending === "stopping" ? "Stopping…" : pending === "starting" ? "Starting…" : null;
  const what = title ? ` ${title}` : " the conversation";
  return action === "stop" ? (
    <button
      type="button"
      className="button button--ghost"
      data-testid="conversation-stop"
      aria-label={`Stop${what} (shuts its sandbox down; it can be started again)`}
      title="Stop the conversation and shut its sandbox down. Start it again at any time."
      disabled={busy}
      onClick={onStop}
    >
      {label ?? (short ? "Stop" : "Stop conversation")}
    </button>
  ) : (
    <button
      type="button"
      className="button"
      data-testid="conversation-start"
      aria-label={`Start${what} again`}
      disabled={busy}
      onClick={onStart}
    >
      {label ?? (short ? "Start" : "Start conversation")}
    </button>
  );
}
