import { describe, expect, it } from "vitest";
import { ACTION_FIXTURES } from "../test/fixtures/events";
import { HISTORY_PAGE, loadEventHistory, rangesBelow, type EventPages } from "./eventHistory";
import type { EventPage, EventQuery, OhEvent } from "./types";

function event(id: number): OhEvent {
  return { ...ACTION_FIXTURES.message, id };
}

/** The /events route over `ids`, with its paging rules (limit+1 decides has_more). */
class FakeRoute implements EventPages {
  readonly conversationId = "c1";
  readonly queries: EventQuery[] = [];
  inFlight = 0;
  maxInFlight = 0;
  failOn: ((query: EventQuery) => boolean) | null = null;

  constructor(private readonly ids: number[]) {}

  async events(query: EventQuery): Promise<EventPage> {
    this.queries.push(query);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((resolve) => setTimeout(resolve, 1));
    this.inFlight--;
    if (this.failOn?.(query)) throw new Error("boom");
    const start = query.start_id ?? 0;
    const end = query.end_id ?? Number.MAX_SAFE_INTEGER;
    const limit = query.limit ?? 20;
    let found = this.ids.filter((id) => id >= start && id <= end);
    if (query.reverse) found = found.reverse();
    return { events: found.slice(0, limit).map(event), has_more: found.length > limit };
  }
}

async function load(route: FakeRoute) {
  const pages: number[][] = [];
  const latest = await loadEventHistory(route, (events) => pages.push(events.map((e) => (e as OhEvent).id!)));
  return { latest, pages, all: pages.flat().sort((a, b) => a - b) };
}

describe("rangesBelow", () => {
  it("splits the ids below the newest page into page-sized ranges, newest first", () => {
    expect(rangesBelow(250)).toEqual([
      { start: 150, end: 249 },
      { start: 50, end: 149 },
      { start: 0, end: 49 },
    ]);
    expect(rangesBelow(0)).toEqual([]);
  });
});

describe("loadEventHistory", () => {
  it("returns -1 for a conversation without events", async () => {
    const { latest, pages } = await load(new FakeRoute([]));
    expect(latest).toBe(-1);
    expect(pages).toEqual([]);
  });

  it("reads a short history in one request, in ascending order", async () => {
    const route = new FakeRoute([0, 1, 2, 3]);
    const { latest, pages } = await load(route);
    expect(latest).toBe(3);
    expect(pages).toEqual([[0, 1, 2, 3]]);
    expect(route.queries).toEqual([{ reverse: true, limit: HISTORY_PAGE }]);
  });

  it("fetches 1,000 events in ten requests, newest page first, a few at a time", async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => i);
    const route = new FakeRoute(ids);
    const { latest, pages, all } = await load(route);
    expect(latest).toBe(999);
    expect(all).toEqual(ids);
    expect(route.queries).toHaveLength(10);
    expect(pages[0]).toEqual(ids.slice(900));
    expect(route.queries[1]).toEqual({ start_id: 800, end_id: 899, limit: HISTORY_PAGE });
    expect(route.maxInFlight).toBeGreaterThan(1);
    expect(route.maxInFlight).toBeLessThanOrEqual(4);
  });

  it("skips gaps in the ids", async () => {
    const ids = [0, 1, 5, ...Array.from({ length: 150 }, (_, i) => i + 40)];
    const { latest, all } = await load(new FakeRoute(ids));
    expect(latest).toBe(189);
    expect(all).toEqual(ids);
  });

  it("rejects when a page fails, since the history would have a hole", async () => {
    const route = new FakeRoute(Array.from({ length: 300 }, (_, i) => i));
    route.failOn = (query) => query.start_id === 0;
    await expect(load(route)).rejects.toThrow("boom");
  });
});
