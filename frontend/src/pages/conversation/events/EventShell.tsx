/** The frame every rendered event shares: test id, kind, source and variant. */
import type { ReactNode } from "react";
import { useTranslation } from "../../../i18n/useTranslation";
import type { OhEvent } from "../../../api/types";
import { formatTimestamp } from "../../../format";
import { eventType } from "../../../state/eventVisibility";

export type Variant = "user" | "agent" | "card" | "compact" | "error" | "final" | "thought";

interface Props {
  event: OhEvent;
  variant: Variant;
  /** Short heading for cards ("Command", "File edit"); also names the region. */
  heading?: ReactNode;
  label?: string;
  children?: ReactNode;
}

export function EventShell({ event, variant, heading, label, children }: Props) {
  const kind = "action" in event ? "action" : "observation";
  const type = eventType(event);
  return (
    <article
      className={`event event--${variant} event--from-${event.source ?? "agent"}`}
      data-testid={`event-${type}`}
      data-event-kind={kind}
      data-event-id={event.id}
      aria-label={label ?? `${kind} ${type}`}
    >
      {heading && (
        <header className="event__head">
          <span className="event__heading">{heading}</span>
          {event.timestamp && (
            <time className="event__time" dateTime={event.timestamp}>
              {formatTimestamp(event.timestamp)}
            </time>
          )}
        </header>
      )}
      {children}
    </article>
  );
}

/** The agent's reasoning attached to an action, when it gave one. */
export function Thought({ text }: { text: string | undefined }) {
  if (!text || !text.trim()) return null;
  return <p className="event__thought">{text}</p>;
}

export function Path({ path }: { path: string }) {
  return <code className="path">{path}</code>;
}

const RISK_LEVELS: ReadonlySet<number> = new Set([0, 1, 2]);

/** Security risk (when known) and confirmation state of a runnable action. */
export function ActionBadges({ risk, confirmation }: { risk?: number | undefined; confirmation?: string | undefined }) {
  const { t } = useTranslation("conversation");
  const riskLabel = risk !== undefined && RISK_LEVELS.has(risk) ? t(`risk.${risk as 0 | 1 | 2}`) : undefined;
  return (
    <>
      {riskLabel && <span className={`pill pill--risk-${risk}`}>{riskLabel}</span>}
      {confirmation === "awaiting_confirmation" && <span className="pill pill--warn">{t("risk.awaitingConfirmation")}</span>}
      {confirmation === "rejected" && <span className="pill pill--error">{t("risk.rejected")}</span>}
    </>
  );
}

export function Json({ value }: { value: unknown }) {
  return <pre className="code-block" tabIndex={0}>{JSON.stringify(value, null, 2)}</pre>;
}
