/**
 * The chat transcript. Rows are memoised per event and only the most recent
 * PAGE visible events are mounted (older ones on request), so long
 * conversations stay cheap to render and to update.
 */
import { useLayoutEffect, useMemo, useRef, useState } from "react";
import type { AgentState, OhEvent } from "../../api/types";
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
}

export function EventList({ events, agentState, loading = false, pendingMessage = null }: Props) {
  const visible = useMemo(() => events.filter(isChatVisible), [events]);
  const [limit, setLimit] = useState(PAGE);
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);

  const hidden = Math.max(0, visible.length - limit);
  const shown = hidden > 0 ? visible.slice(hidden) : visible;

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [shown, agentState, pendingMessage]);

  return (
    <div
      ref={scroller}
      className="event-list"
      data-testid="event-list"
      role="log"
      aria-label="Conversation events"
      aria-live="polite"
      aria-relevant="additions"
      onScroll={(e) => {
        const el = e.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
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
          Show {Math.min(PAGE, hidden)} earlier events
        </button>
      )}
      {visible.length === 0 && !pendingMessage && (
        <p className="empty muted">{loading ? "Loading the history…" : "No messages yet."}</p>
      )}
      {pendingMessage && (
        <article className="event event--user pending-message" data-testid="pending-message" aria-label="Your task">
          <p className="pending-message__text">{pendingMessage}</p>
          <p className="pending-message__note">Sent. The agent reads it once its sandbox is up.</p>
        </article>
      )}
      {shown.map((event) => (
        <EventView key={event.id} event={event} />
      ))}
    </div>
  );
}
