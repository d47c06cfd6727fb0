/**
 * A conversation's stored events over REST (GET …/events, server-api.md §6.4),
 * so the chat shows the history at once, before the agent loop and its socket
 * are up (opening a stopped conversation starts a sandbox, which takes seconds).
 *
 * The route caps a page at 100 events and does not say how many there are.
 * The newest page is therefore asked first, in reverse order: it holds what the
 * chat shows first, and its oldest id tells which id ranges remain below it.
 * Those ranges are then fetched a few at a time, newest first. Each range spans
 * at most one page of ids, so a single request normally covers it (ids are
 * unique; gaps only make a page shorter).
 */
import type { EventPage, EventQuery } from "./types";

/** The route's largest `limit`. */
export const HISTORY_PAGE = 100;
/** Requests in flight at once: the server reads files on two cores, the browser allows six. */
const IN_FLIGHT = 4;

export interface EventPages {
  readonly conversationId: string;
  events(query: EventQuery, signal?: AbortSignal): Promise<EventPage>;
}

interface IdRange {
  start: number;
  end: number;
}

function idOf(event: unknown): number | null {
  const id = (event as { id?: unknown } | null)?.id;
  return typeof id === "number" && Number.isInteger(id) ? id : null;
}

/** The id ranges below `oldest`, HISTORY_PAGE ids each, newest first. */
export function rangesBelow(oldest: number): IdRange[] {
  const ranges: IdRange[] = [];
  for (let end = oldest - 1; end >= 0; end -= HISTORY_PAGE) {
    ranges.push({ start: Math.max(0, end - HISTORY_PAGE + 1), end });
  }
  return ranges;
}

async function loadRange(
  api: EventPages,
  range: IdRange,
  onEvents: (events: readonly unknown[]) => void,
  signal?: AbortSignal,
): Promise<void> {
  let from = range.start;
  for (;;) {
    const page = await api.events({ start_id: from, end_id: range.end, limit: HISTORY_PAGE }, signal);
    if (page.events.length > 0) onEvents(page.events);
    const last = idOf(page.events[page.events.length - 1]);
    // More than a page in one range only if the server pages differently; carry on after it.
    if (!page.has_more || last === null || last >= range.end) return;
    from = last + 1;
  }
}

/** Runs `task` over `items` with at most `limit` running; rejects on the first failure. */
async function eachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Fetches every stored event, handing each page to `onEvents` as it arrives
 * (newest page first, in ascending id order within a page). Resolves to the
 * highest id fetched (-1 for an empty conversation): the socket resumes after
 * it. Rejects if any page fails, since the history would then have holes.
 */
export async function loadEventHistory(
  api: EventPages,
  onEvents: (events: readonly unknown[]) => void,
  signal?: AbortSignal,
): Promise<number> {
  const newest = await api.events({ reverse: true, limit: HISTORY_PAGE }, signal);
  const ids = newest.events.map(idOf).filter((id): id is number => id !== null);
  if (ids.length === 0) return -1;
  onEvents([...newest.events].reverse());
  const latest = Math.max(...ids);
  if (newest.has_more) {
    await eachLimited(rangesBelow(Math.min(...ids)), IN_FLIGHT, (range) => loadRange(api, range, onEvents, signal));
  }
  return latest;
}
