import { useCallback, useEffect, useMemo, useState } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import type { TFunction } from "i18next";
import type { OhEvent, UserAction } from "../../api/types";
import { pendingConfirmation } from "../../state/conversationReducer";
import { changeState } from "./AgentControls";

const HIGH_RISK = 2;

function describe(event: OhEvent | null, t: TFunction<"conversation">): string {
  if (!event || !("action" in event)) return t("confirm.unknown");
  switch (event.action) {
    case "run":
      return t("confirm.run", { command: event.args.command });
    case "run_ipython":
      return t("confirm.python");
    case "edit":
    case "write":
      return t("confirm.changeFile", { path: event.args.path });
    case "browse":
      return t("confirm.open", { url: event.args.url });
    default:
      return event.message || t("confirm.action", { action: event.action });
  }
}

/** The security analyser rated the action HIGH (a number here; some senders use the word). */
export function isHighRisk(event: OhEvent | null): boolean {
  if (!event || !("action" in event)) return false;
  const risk = (event.args as { security_risk?: unknown }).security_risk;
  return typeof risk === "string" ? risk.toLowerCase() === "high" : Number(risk) === HIGH_RISK;
}

/** Ctrl/Cmd+Enter confirms; Ctrl/Cmd+Shift+Backspace rejects (0.59 uses ⌘↩ and ⇧⌘⌫). */
export function shortcutOf(event: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "shiftKey">): "confirm" | "reject" | null {
  if (!event.ctrlKey && !event.metaKey) return null;
  if (event.key === "Enter" && !event.shiftKey) return "confirm";
  if (event.key === "Backspace" && event.shiftKey) return "reject";
  return null;
}

/** Shown in confirmation mode while the agent waits for approval. */
export function ConfirmationBar({
  events,
  disabled,
  onSend,
}: {
  events: readonly OhEvent[];
  disabled: boolean;
  onSend(action: UserAction): boolean;
}) {
  const { t } = useTranslation("conversation");
  const pending = useMemo(() => pendingConfirmation(events), [events]);
  // One answer per action: a second key press while the state changes sends nothing.
  const [answered, setAnswered] = useState<number | null>(null);
  const pendingId = pending?.id ?? null;
  const done = answered !== null && answered === pendingId;
  const answer = useCallback(
    (choice: "confirm" | "reject") => {
      if (disabled || done) return;
      if (onSend(changeState(choice === "confirm" ? "user_confirmed" : "user_rejected"))) setAnswered(pendingId);
    },
    [disabled, done, onSend, pendingId],
  );

  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      const choice = shortcutOf(event);
      if (!choice) return;
      event.preventDefault();
      answer(choice);
    }
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [answer]);

  const highRisk = isHighRisk(pending);
  return (
    <div className="confirmation-bar" role="region" aria-label={t("confirm.region")} data-testid="confirmation-bar">
      {highRisk && (
        <p className="risk-banner" role="alert" data-testid="high-risk-banner">
          <strong>{t("confirm.highRisk")}</strong> {t("confirm.highRiskText")}
        </p>
      )}
      <p className="confirmation-bar__text">
        <strong>{t("confirm.question")}</strong> <span className="confirmation-bar__what">{describe(pending, t)}</span>
      </p>
      <div className="confirmation-bar__buttons">
        <button
          type="button"
          className="button button--primary"
          data-testid="confirm-action"
          aria-label={t("confirm.confirmLabel")}
          aria-keyshortcuts="Control+Enter Meta+Enter"
          title={t("confirm.confirmTitle")}
          disabled={disabled || done}
          onClick={() => answer("confirm")}
        >
          {t("confirm.confirm")}
        </button>
        <button
          type="button"
          className="button button--danger"
          data-testid="reject-action"
          aria-label={t("confirm.rejectLabel")}
          aria-keyshortcuts="Control+Shift+Backspace Meta+Shift+Backspace"
          title={t("confirm.rejectTitle")}
          disabled={disabled || done}
          onClick={() => answer("reject")}
        >
          {t("confirm.reject")}
        </button>
      </div>
      <p className="confirmation-bar__keys muted">
        {t("confirm.keys")}
      </p>
    </div>
  );
}
