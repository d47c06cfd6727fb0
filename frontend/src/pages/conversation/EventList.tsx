/**
 * The chat transcript. Rows are memoised per event and only the most recent
 * PAGE visible events are mounted (older ones on request), so long
 * conversations stay cheap to render and to update.
 */
import { useLayoutEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "../../i18n/useTranslation";
import type { AgentState, OhEvent } from "../../api/types";
import { withoutFilePaths } from "./attachments";
import type { Echo } from "./echoes";
import { isChatVisible } from "../../state/eventVisibility";
import { EventView } from "./events/EventView";

export const PAGE = 300;
const STICK_PX = 80;

interface Props {
  events: readonly OhEvent[];
  agentState: AgentState | null;
  /** The stored history is still on its way. */
  loading?: boolean;
  /** The user's task, shown at once until the server's copy of it arrives (optimistic echo). */
  pendingMessage?: string | null;
  /** Messages sent from the chat box whose server copy has not arrived yet. */
  echoes?: readonly Echo[];
}

const NO_ECHOES: readonly Echo[] = [];

function EchoView({ echo }: { echo: Echo }) {
  const { t } = useTranslation("conversation");
  const shownText = withoutFilePaths(echo.text, echo.files);
  return (
    <article className="event event--user pending-message" data-testid="message-echo" aria-label={t("events.yourMessageSending")}>
      {shownText && (
        <p className="pending-message__text" dir="auto">
          {shownText}
        </p>
      )}
      {echo.images.length > 0 && (
        <div className="attachments">
          {echo.images.map((src, i) => (
            <img key={i} src={src} alt={t("events.attachedImage", { n: i + 1 })} className="attachment-image" />
          ))}
        </div>
      )}
      {echo.files.length > 0 && (
        <p className="pending-message__note">
          {echo.files.map((path) => (
            <code key={path} className="path">
              {path}
            </code>
          ))}
        </p>
      )}
      <p className="pending-message__note">{t("chat.sending")}</p>
    </article>
  );
}

export function EventList({ events, agentState, loading = false, pendingMessage = null, echoes = NO_ECHOES }: Props) {
  const { t } = useTranslation("conversation");
  const visible = useMemo(() => events.filter(isChatVisible), [events]);
  const [limit, setLimit] = useState(PAGE);
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  // Shown while the user has scrolled up from the newest events.
  const [awayFromBottom, setAwayFromBottom] = useState(false);

  const hidden = Math.max(0, visible.length - limit);
  const shown = hidden > 0 ? visible.slice(hidden) : visible;

  // A message the user just sent brings the view back to the newest events.
  const echoCount = useRef(echoes.length);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (echoes.length > echoCount.current) {
      atBottom.current = true;
      setAwayFromBottom(false);
    }
    echoCount.current = echoes.length;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [shown, agentState, pendingMessage, echoes]);

  function scrollToBottom() {
    const el = scroller.current;
    if (!el) return;
    atBottom.current = true;
    setAwayFromBottom(false);
    el.scrollTop = el.scrollHeight;
  }

  return (
    <div className="event-list-frame">
      <div
        ref={scroller}
        className="event-list"
        data-testid="event-list"
        role="log"
        aria-label={t("events.label")}
        aria-live="polite"
        aria-relevant="additions"
        onScroll={(e) => {
          const el = e.currentTarget;
          atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
          if (awayFromBottom === atBottom.current) setAwayFromBottom(!atBottom.current);
        }}
      >
        {hidden > 0 && (
          <button
            type="button"
            className="button button--ghost show-earlier"
            onClick={() => {
              atBottom.current = false;
              setLimit((n) => n + PAGE);
            }}
          >
            {t("events.showEarlier", { n: Math.min(PAGE, hidden) })}
          </button>
        )}
        {visible.length === 0 && !pendingMessage && echoes.length === 0 && (
          <p className="empty muted">{loading ? t("events.loadingHistory") : t("events.empty")}</p>
        )}
        {pendingMessage && (
          <article className="event event--user pending-message" data-testid="pending-message" aria-label={t("events.yourTask")}>
            <p className="pending-message__text" dir="auto">
              {pendingMessage}
            </p>
            <p className="pending-message__note">{t("events.taskSent")}</p>
          </article>
        )}
        {shown.map((event) => (
          <EventView key={event.id} event={event} />
        ))}
        {echoes.map((echo) => (
          <EchoView key={echo.key} echo={echo} />
        ))}
      </div>
      {awayFromBottom && (
        <button
          type="button"
          className="button button--small scroll-to-bottom"
          data-testid="scroll-to-bottom"
          aria-label={t("events.scrollToBottom")}
          onClick={scrollToBottom}
        >
          ↓ {t("events.newest")}
        </button>
      )}
    </div>
  );
}
