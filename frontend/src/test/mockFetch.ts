/** A tiny fetch stand-in for component tests: routes by "METHOD /path" (query ignored). */
import { vi } from "vitest";

export interface Reply {
  status?: number;
  body?: unknown;
}
export interface RecordedCall {
  method: string;
  url: string;
  body: unknown;
}

export function mockFetch(routes: Record<string, Reply | ((body: unknown) => Reply)>) {
  const calls: RecordedCall[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const method = init?.method ?? "GET";
    const raw = init?.body;
    const body = typeof raw === "string" ? (JSON.parse(raw) as unknown) : raw;
    calls.push({ method, url, body });
    const path = url.split("?")[0];
    const route = routes[`${method} ${path}`];
    const reply = typeof route === "function" ? route(body) : route;
    if (!reply) return new Response(JSON.stringify({ detail: "Not Found" }), { status: 404 });
    const status = reply.status ?? 200;
    return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), { status });
  });
  vi.stubGlobal("fetch", fetchMock);
  return { calls, fetchMock };
}
