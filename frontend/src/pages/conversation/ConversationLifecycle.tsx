/**
 * Stop / start of the whole conversation (its agent loop and sandbox), through
 * POST …/stop and …/start. Not the agent's own stop (AgentControls), which only
 * ends the current task and keeps the sandbox.
 */
import { useTranslation } from "../../i18n/useTranslation";
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
  const { t } = useTranslation("conversation");
  const action = lifecycleAction(status);
  if (!action) return null;
  const busy = pending !== null;
  const label = pending === "stopping" ? t("lifecycle.stopping") : pending === "starting" ? t("lifecycle.starting") : null;
  // The accessible name starts with the visible text (speech input users say what they see).
  const named = (visible: string) => (title ? t("lifecycle.named", { action: visible, title }) : undefined);
  if (action === "stop") {
    const text = label ?? (short ? t("lifecycle.stop") : t("lifecycle.stopConversation"));
    return (
      <button
        type="button"
        className="button button--ghost"
        data-testid="conversation-stop"
        aria-label={named(text)}
        title={t("lifecycle.stopHint")}
        disabled={busy}
        onClick={onStop}
      >
        {text}
      </button>
    );
  }
  const text = label ?? (short ? t("lifecycle.start") : t("lifecycle.startConversation"));
  return (
    <button type="button" className="button" data-testid="conversation-start" aria-label={named(text)} disabled={busy} onClick={onStart}>
      {text}
    </button>
  );
}
