import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ConversationInfo } from "../../api/types";
import { DEFAULT_SETTINGS } from "../../state/settingsForm";
import { ACTION_FIXTURES, OBSERVATION_FIXTURES } from "../../test/fixtures/events";
import { mockFetch } from "../../test/mockFetch";
import { renderWithApp } from "../../test/renderWithApp";

/** socket.io-client stand-in: each io() call is recorded, and the test fires its events. */
class FakeSocket {
  handlers = new Map<string, ((...args: unknown[]) => void)[]>();
  io = { opts: { query: {} }, on: vi.fn(), removeAllListeners: vi.fn() };
  on(name: string, handler: (...args: unknown[]) => void) {
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), handler]);
    return this;
  }
  fire(name: string, ...args: unknown[]) {
    for (const handler of this.handlers.get(name) ?? []) handler(...args);
  }
  emit() {
    return this;
  }
  removeAllListeners() {
    this.handlers.clear();
    return this;
  }
  disconnect() {
    return this;
  }
}
const sockets: { query: Record<string, string>; socket: FakeSocket }[] = [];
vi.mock("socket.io-client", () => ({
  io: (_url: string, options: { query: Record<string, string> }) => {
    const socket = new FakeSocket();
    sockets.push({ query: options.query, socket });
    return socket;
  },
}));

const { default: OverviewPage } = await import("./OverviewPage");

afterEach(() => {
  vi.unstubAllGlobals();
  sockets.length = 0;
});

const conversation = (id: string, title: string, status: ConversationInfo["status"]): ConversationInfo => ({
  conversation_id: id,
  title,
  last_updated_at: null,
  status,
  runtime_status: status === "RUNNING" ? "STATUS$READY" : null,
  selected_repository: null,
  selected_branch: null,
  git_provider: null,
  trigger: "gui",
  num_connections: 0,
  url: status === "RUNNING" ? `/api/conversations/${id}` : null,
  session_api_key: null,
  created_at: "2025-10-10T10:00:00.000001Z",
  pr_number: [],
});
const A = "a".repeat(32);
const B = "b".repeat(32);
const C = "c".repeat(32);
const SETTINGS = { ...DEFAULT_SETTINGS, llm_api_key_set: true, search_api_key_set: false, provider_tokens_set: {} };
const running = (id: number) => ({ ...OBSERVATION_FIXTURES.agent_state_changed, id, extras: { agent_state: "running", reason: "" } });

function row(id: string) {
  return screen.getAllByTestId("overview-row").find((el) => el.dataset.conversationId === id)!;
}

describe("OverviewPage", () => {
  it("follows every running agent live: state, step, last action, cost, sandbox; stops one", async () => {
    const { calls } = mockFetch({
      "GET /api/settings": { body: SETTINGS },
      "GET /api/conversations": {
        body: { results: [conversation(A, "Agent A", "RUNNING"), conversation(B, "Agent B", "RUNNING"), conversation(C, "Old", "STOPPED")], next_page_id: null },
      },
      // Newest first, as asked (reverse=true).
      [`GET /api/conversations/${A}/events`]: { body: { events: [running(6), ACTION_FIXTURES.run], has_more: true } },
      [`GET /api/conversations/${B}/events`]: { body: { events: [running(2)], has_more: false } },
      [`GET /api/conversations/${A}/config`]: { body: { runtime_id: "rt-a", session_id: A } },
      [`GET /api/conversations/${B}/config`]: { body: { runtime_id: null, session_id: B } },
      [`POST /api/conversations/${B}/stop`]: { body: { status: "ok", conversation_id: B, message: null, conversation_status: "RUNNING" } },
    });
    renderWithApp(<OverviewPage />, "/agents");
    await waitFor(() => expect(screen.getAllByTestId("overview-row")).toHaveLength(2));
    expect(screen.queryByText("Old")).toBeNull();
    expect(calls.some((c) => c.url.startsWith(`/api/conversations/${A}/events`) && c.url.includes("reverse=true"))).toBe(true);

    await waitFor(() => expect(sockets).toHaveLength(2));
    const socketA = sockets.find((s) => s.query.conversation_id === A)!;
    expect(socketA.query.latest_event_id).toBe("6"); // resumes after the newest event held
    act(() => sockets.forEach((s) => s.socket.fire("connect")));

    const a = row(A);
    await waitFor(() => expect(within(a).getByTestId("overview-status").textContent).toContain("Running the task…"));
    expect(within(a).getByTestId("overview-last-action").textContent).toBe(`Ran: ${ACTION_FIXTURES.run.args.command}`);
    expect(within(a).getByTestId("overview-step").textContent).toBe("1");
    expect(within(a).getByTestId("overview-cost").textContent).toBe("$0.0012");
    expect(within(a).getByTestId("overview-sandbox").textContent).toContain("Ready.");
    await waitFor(() => expect(within(a).getByTestId("overview-sandbox").textContent).toContain("rt-a"));
    expect(within(row(B)).getByTestId("overview-last-action").textContent).toBe("None yet");

    // A live push moves B's row on; A's row is untouched.
    const socketB = sockets.find((s) => s.query.conversation_id === B)!;
    act(() => {
      socketB.socket.fire("oh_event", { ...ACTION_FIXTURES.finish, id: 3 });
      socketB.socket.fire("oh_event", { ...OBSERVATION_FIXTURES.agent_state_changed, id: 4, extras: { agent_state: "finished", reason: "" } });
    });
    await waitFor(() => expect(within(row(B)).getByTestId("overview-status").textContent).toContain("Task finished."));
    expect(within(row(B)).getByTestId("overview-last-action").textContent).toBe("Finished the task");
    expect(row(B).dataset.state).toBe("finished");
    expect(row(A).dataset.state).toBe("running");

    fireEvent.click(within(row(B)).getByTestId("overview-stop"));
    await waitFor(() => expect(calls.some((c) => c.method === "POST" && c.url.endsWith(`/${B}/stop`))).toBe(true));
  });

  it("says so when no agent runs", async () => {
    mockFetch({
      "GET /api/settings": { body: SETTINGS },
      "GET /api/conversations": { body: { results: [conversation(C, "Old", "STOPPED")], next_page_id: null } },
    });
    renderWithApp(<OverviewPage />, "/agents");
    expect(await screen.findByTestId("overview-empty")).toBeTruthy();
    expect(sockets).toHaveLength(0);
  });
});
