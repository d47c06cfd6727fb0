import { act, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ConversationInfo } from "../../api/types";
import { DEFAULT_SETTINGS } from "../../state/settingsForm";
import { ACTION_FIXTURES, OBSERVATION_FIXTURES } from "../../test/fixtures/events";
import { mockFetch } from "../../test/mockFetch";
import { renderWithApp } from "../../test/renderWithApp";

/** A stand-in for socket.io-client's Socket that the test drives by hand. */
class FakeSocket {
  handlers = new Map<string, ((...args: unknown[]) => void)[]>();
  emitted: [string, unknown][] = [];
  io = { opts: { query: {} as Record<string, string> }, on: vi.fn(), removeAllListeners: vi.fn() };
  on(name: string, handler: (...args: unknown[]) => void) {
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), handler]);
    return this;
  }
  emit(name: string, payload: unknown) {
    this.emitted.push([name, payload]);
    return this;
  }
  fire(name: string, ...args: unknown[]) {
    for (const handler of this.handlers.get(name) ?? []) handler(...args);
  }
  removeAllListeners() {
    this.handlers.clear();
    return this;
  }
  connect() {
    return this;
  }
  disconnect() {
    return this;
  }
}

const sockets: { url: string; options: Record<string, unknown>; socket: FakeSocket }[] = [];
vi.mock("socket.io-client", () => ({
  io: (url: string, options: Record<string, unknown>) => {
    const socket = new FakeSocket();
    sockets.push({ url, options, socket });
    return socket;
  },
}));

// xterm.js needs a real browser (canvas, matchMedia); its wiring is checked in terminalText.test.ts.
vi.mock("./workspace/TerminalTab", () => ({ default: () => <div data-testid="terminal" /> }));

const { default: ConversationPage } = await import("./ConversationPage");

const ID = "5f3c0e0123456789abcdef0123456789";
const RUNNING: ConversationInfo = {
  conversation_id: ID,
  title: "Write hello.py",
  last_updated_at: "2025-10-10T10:02:11.512Z",
  status: "RUNNING",
  runtime_status: "STATUS$READY",
  selected_repository: null,
  selected_branch: null,
  git_provider: null,
  trigger: "gui",
  num_connections: 0,
  url: `/api/conversations/${ID}`,
  session_api_key: null,
  created_at: "2025-10-10T10:00:00.000001Z",
  pr_number: [],
};
const SETTINGS = {
  ...DEFAULT_SETTINGS,
  llm_api_key_set: true,
  search_api_key_set: false,
  provider_tokens_set: { github: "github.com" },
};

/** A stored history as GET …/events returns it: ascending ids, the last run's final state last. */
const HISTORY = [
  ACTION_FIXTURES.message,
  ACTION_FIXTURES.run,
  OBSERVATION_FIXTURES.run,
  { ...OBSERVATION_FIXTURES.agent_state_changed, id: 40, extras: { agent_state: "finished", reason: "" } },
];

beforeEach(() => {
  sockets.length = 0;
});
afterEach(() => vi.unstubAllGlobals());

async function openPage(info: ConversationInfo = RUNNING, extra = {}) {
  const api = mockFetch({
    "GET /api/settings": { body: SETTINGS },
    [`GET /api/conversations/${ID}`]: { body: info },
    ...extra,
  });
  renderWithApp(<ConversationPage />, `/conversations/${ID}`, "/conversations/:conversationId");
  return api;
}

async function deliver(socket: FakeSocket, ...payloads: unknown[]) {
  await act(async () => {
    for (const payload of payloads) socket.fire("oh_event", payload);
    await new Promise((resolve) => setTimeout(resolve, 40));
  });
}

describe("ConversationPage", () => {
  it("connects to /socket.io with the conversation, last event id and providers", async () => {
    await openPage();
    await waitFor(() => expect(sockets).toHaveLength(1));
    const { options } = sockets[0]!;
    expect(options.path).toBe("/socket.io");
    expect(options.transports).toEqual(["websocket"]);
    expect(options.query).toEqual({ conversation_id: ID, latest_event_id: "-1", providers_set: "github" });
  });

  it("renders replayed events, the agent state and the metrics", async () => {
    await openPage();
    await waitFor(() => expect(sockets).toHaveLength(1));
    const socket = sockets[0]!.socket;
    act(() => socket.fire("connect"));
    await deliver(
      socket,
      ACTION_FIXTURES.message,
      ACTION_FIXTURES.run,
      OBSERVATION_FIXTURES.run,
      { ...OBSERVATION_FIXTURES.agent_state_changed, id: 40, extras: { agent_state: "finished", reason: "" } },
    );
    expect(screen.getByTestId("agent-status").dataset.state).toBe("finished");
    expect(screen.getByTestId("event-message").textContent).toContain("Write hello.py");
    expect(screen.getAllByTestId("event-run")).toHaveLength(2);
    expect(screen.getByTestId("metrics-cost").textContent).toBe("$0.0012");
  });

  it("resumes from the last event id on reconnect", async () => {
    await openPage();
    await waitFor(() => expect(sockets).toHaveLength(1));
    const socket = sockets[0]!.socket;
    await deliver(socket, ACTION_FIXTURES.message, OBSERVATION_FIXTURES.run);
    const reconnectAttempt = socket.io.on.mock.calls.find(([name]) => name === "reconnect_attempt")?.[1] as () => void;
    reconnectAttempt();
    expect(socket.io.opts.query.latest_event_id).toBe("6");
  });

  it("sends chat messages and state changes as oh_user_action", async () => {
    await openPage();
    await waitFor(() => expect(sockets).toHaveLength(1));
    const socket = sockets[0]!.socket;
    act(() => socket.fire("connect"));
    await deliver(socket, { ...OBSERVATION_FIXTURES.agent_state_changed, extras: { agent_state: "running", reason: "" } });

    fireEvent.change(screen.getByTestId("chat-input"), { target: { value: "also add tests" } });
    fireEvent.keyDown(screen.getByTestId("chat-input"), { key: "Enter" });
    await waitFor(() => expect(socket.emitted).toHaveLength(1));
    fireEvent.click(screen.getByTestId("pause-agent"));
    expect(socket.emitted).toEqual([
      ["oh_user_action", { action: "message", args: { content: "also add tests", image_urls: [], file_urls: [] } }],
      ["oh_user_action", { action: "change_agent_state", args: { agent_state: "paused" } }],
    ]);
  });

  it("shows runtime progress as it arrives, worded from the status id alone", async () => {
    await openPage();
    await waitFor(() => expect(sockets).toHaveLength(1));
    const socket = sockets[0]!.socket;
    act(() => socket.fire("connect"));
    await deliver(socket, { status_update: true, type: "info", id: "STATUS$STARTING_RUNTIME", message: "Building runtime..." });
    expect(screen.getByTestId("status-line").textContent).toContain("Starting the sandbox…");
    expect(screen.getByTestId("status-line").textContent).not.toContain("Building");
    await deliver(socket, { status_update: true, type: "info", id: "STATUS$SETTING_UP_WORKSPACE", message: "Setting up workspace..." });
    expect(screen.getByTestId("status-line").textContent).toContain("Setting up the repository…");
    await deliver(socket, { status_update: true, type: "info", id: "STATUS$LLM_RETRY", message: "Retrying LLM request, 2 / 5" });
    expect(screen.getByTestId("status-line").textContent).toContain("Retrying LLM request, 2 / 5");
  });

  it("says so when the sandbox failed before the agent started", async () => {
    await openPage({ ...RUNNING, status: "STARTING", runtime_status: "STATUS$ERROR_RUNTIME_DISCONNECTED", url: null });
    await waitFor(() => expect(screen.getByTestId("status-line").textContent).toContain("The sandbox disconnected."));
    expect(screen.getByTestId("status-line").className).toContain("status-line--error");
    expect(screen.getByTestId("status-line").textContent).toContain("Restart the conversation");
    expect(screen.getByTestId("status-line-action").textContent).toBe("Restart");
    expect(screen.getByTestId("agent-status").dataset.state).toBe("error");
  });

  it("keeps starting conversations in progress, with the badge loading", async () => {
    await openPage({ ...RUNNING, status: "STARTING", runtime_status: "STATUS$STARTING_RUNTIME", url: null });
    await waitFor(() => expect(screen.getByTestId("status-line").textContent).toContain("Starting the sandbox"));
    expect(screen.getByTestId("status-line").className).toContain("status-line--progress");
    expect(screen.getByTestId("agent-status").dataset.state).toBe("loading");
  });

  it("shows the confirm / reject bar in confirmation mode", async () => {
    await openPage();
    await waitFor(() => expect(sockets).toHaveLength(1));
    const socket = sockets[0]!.socket;
    act(() => socket.fire("connect"));
    const pending = {
      ...ACTION_FIXTURES.run,
      id: 50,
      args: { ...ACTION_FIXTURES.run.args, confirmation_state: "awaiting_confirmation" },
    };
    await deliver(socket, pending, {
      ...OBSERVATION_FIXTURES.agent_state_changed,
      id: 51,
      extras: { agent_state: "awaiting_user_confirmation", reason: "" },
    });
    fireEvent.click(screen.getByTestId("confirm-action"));
    expect(socket.emitted.at(-1)).toEqual([
      "oh_user_action",
      { action: "change_agent_state", args: { agent_state: "user_confirmed" } },
    ]);
  });

  it("pauses the agent when it reports reaching its iteration limit", async () => {
    await openPage();
    await waitFor(() => expect(sockets).toHaveLength(1));
    const socket = sockets[0]!.socket;
    act(() => socket.fire("connect"));
    await deliver(socket, {
      status_update: true,
      type: "error",
      id: "STATUS$ERROR",
      message: "Agent reached maximum iteration. Current iteration: 50, max iteration: 50",
    });
    expect(screen.getByTestId("status-line").textContent).toContain("Agent reached maximum iteration");
    expect(socket.emitted).toEqual([["oh_user_action", { action: "change_agent_state", args: { agent_state: "paused" } }]]);
  });

  it("shows the stored history of a stopped conversation at once, with the badge still loading", async () => {
    let started = false;
    const { calls } = await openPage(
      { ...RUNNING, status: "STOPPED", runtime_status: null, url: null },
      {
        [`GET /api/conversations/${ID}`]: () => ({
          body: { ...RUNNING, status: started ? "STARTING" : "STOPPED", runtime_status: null, url: null },
        }),
        [`POST /api/conversations/${ID}/start`]: () => {
          started = true;
          return { body: { status: "ok", conversation_id: ID, message: null, conversation_status: "STARTING" } };
        },
        [`GET /api/conversations/${ID}/events`]: { body: { events: HISTORY, has_more: false } },
      },
    );
    await waitFor(() => expect(screen.getAllByTestId("event-run")).toHaveLength(2));
    expect(screen.getByTestId("event-message").textContent).toContain("Write hello.py");
    // The last run ended "finished", but that run is over: the badge waits for the socket.
    expect(screen.getByTestId("agent-status").dataset.state).toBe("loading");
    expect(calls.find((c) => c.url.includes("/events"))?.url).toBe(`/api/conversations/${ID}/events?reverse=true&limit=100`);
    expect(sockets).toHaveLength(0);
  });

  it("connects after the history, resuming from the last event it holds", async () => {
    await openPage(RUNNING, { [`GET /api/conversations/${ID}/events`]: { body: { events: HISTORY, has_more: false } } });
    await waitFor(() => expect(sockets).toHaveLength(1));
    const { socket, options } = sockets[0]!;
    expect((options.query as Record<string, string>).latest_event_id).toBe("40");
    expect(screen.getAllByTestId("event-run")).toHaveLength(2);
    expect(screen.getByTestId("agent-status").dataset.state).toBe("loading");

    // Nothing newer to replay: once live, the newest state on record is the current one.
    act(() => socket.fire("connect"));
    await deliver(socket);
    expect(screen.getByTestId("agent-status").dataset.state).toBe("finished");

    // A duplicate of a held event is dropped; a new one is added.
    const next = { ...ACTION_FIXTURES.message, id: 41, message: "and tests", args: { ...ACTION_FIXTURES.message.args, content: "and tests" } };
    await deliver(socket, ACTION_FIXTURES.message, next);
    expect(screen.getAllByTestId("event-message")).toHaveLength(2);
    const reconnectAttempt = socket.io.on.mock.calls.find(([name]) => name === "reconnect_attempt")?.[1] as () => void;
    reconnectAttempt();
    expect(socket.io.opts.query.latest_event_id).toBe("41");
  });

  it("starts a stopped conversation with the providers before connecting", async () => {
    const { calls } = await openPage(
      { ...RUNNING, status: "STOPPED", runtime_status: null, url: null },
      { [`POST /api/conversations/${ID}/start`]: { body: { status: "ok", conversation_id: ID, message: null, conversation_status: "STARTING" } } },
    );
    await waitFor(() => expect(calls.some((c) => c.url.endsWith("/start"))).toBe(true));
    expect(calls.find((c) => c.url.endsWith("/start"))?.body).toEqual({ providers_set: ["github"] });
    expect(sockets).toHaveLength(0);
  });

  it("stops the conversation on request: a calm stopped state, then a start reconnects after the last event", async () => {
    let status: ConversationInfo["status"] = "RUNNING";
    const { calls } = await openPage(RUNNING, {
      [`GET /api/conversations/${ID}`]: () => ({
        body: { ...RUNNING, status, runtime_status: status === "STOPPED" ? null : "STATUS$READY" },
      }),
      [`POST /api/conversations/${ID}/stop`]: () => {
        status = "STOPPED";
        return { body: { status: "ok", conversation_id: ID, message: "Conversation stopped successfully", conversation_status: "RUNNING" } };
      },
      [`POST /api/conversations/${ID}/start`]: () => {
        status = "RUNNING";
        return { body: { status: "ok", conversation_id: ID, message: null, conversation_status: "STARTING" } };
      },
    });
    await waitFor(() => expect(sockets).toHaveLength(1));
    const first = sockets[0]!.socket;
    act(() => first.fire("connect"));
    await deliver(first, ...HISTORY);
    expect(screen.getByTestId("agent-status").dataset.state).toBe("finished");

    fireEvent.click(screen.getByTestId("conversation-stop"));
    // The server closes the session: it drops the socket (and may say the runtime went away).
    await deliver(first, { status_update: true, type: "error", id: "STATUS$ERROR_RUNTIME_DISCONNECTED", message: "" });
    act(() => first.fire("disconnect", "io server disconnect"));
    await waitFor(() => expect(screen.getByTestId("agent-status").dataset.state).toBe("stopped"));
    const line = screen.getByTestId("status-line");
    expect(line.className).toContain("status-line--info");
    expect(line.getAttribute("role")).toBe("status");
    expect(line.textContent).toContain("Stopped");
    expect(line.textContent).not.toContain("disconnected");
    expect(screen.getByTestId("send-button")).toHaveProperty("disabled", true);
    expect(calls.filter((c) => c.url.endsWith("/stop"))).toHaveLength(1);
    // Not started again behind the user's back.
    expect(calls.some((c) => c.url.endsWith("/start"))).toBe(false);
    expect(screen.getAllByTestId("event-run")).toHaveLength(2);

    fireEvent.click(screen.getByTestId("conversation-start"));
    await waitFor(() => expect(sockets).toHaveLength(2));
    expect(calls.find((c) => c.url.endsWith("/start"))?.body).toEqual({ providers_set: ["github"] });
    const second = sockets[1]!;
    expect((second.options.query as Record<string, string>).latest_event_id).toBe("40");
    act(() => second.socket.fire("connect"));
    await deliver(second.socket, { ...OBSERVATION_FIXTURES.agent_state_changed, id: 41, extras: { agent_state: "awaiting_user_input", reason: "" } });
    expect(screen.getByTestId("agent-status").dataset.state).toBe("awaiting_user_input");
    // One line, in words: the agent waits for the user.
    expect(screen.getByTestId("status-line").textContent).toBe("Waiting for your next message.");
    expect(screen.getByTestId("status-line").className).toContain("status-line--info");
    expect(screen.getAllByTestId("event-run")).toHaveLength(2);
    expect(screen.getByTestId("conversation-stop")).toBeTruthy();
  });

  it("shows a plain start as starting, not building", async () => {
    await openPage({ ...RUNNING, status: "STARTING", runtime_status: null, url: null });
    await waitFor(() => expect(screen.getByTestId("status-line").textContent).toContain("Starting the sandbox…"));
    expect(screen.getByTestId("status-line").textContent).not.toContain("Building");
  });
});

describe("ConversationPage: first message, title and menu", () => {
  afterEach(() => sessionStorage.clear());

  it("shows the task typed on Home at once, until the server's copy of it arrives", async () => {
    sessionStorage.setItem(`openhands:pending-task:${ID}`, "Write hello.py");
    await openPage({ ...RUNNING, status: "STARTING", runtime_status: "STATUS$STARTING_RUNTIME", url: null }, {
      [`GET /api/conversations/${ID}/events`]: { body: { events: [], has_more: false } },
    });
    expect((await screen.findByTestId("pending-message")).textContent).toContain("Write hello.py");
    expect(screen.queryByText("No messages yet.")).toBeNull();
    // One status line, in words, while the sandbox starts.
    expect(screen.getAllByTestId("status-line")).toHaveLength(1);
    await waitFor(() => expect(screen.getByTestId("status-line").textContent).toBe("Starting the sandbox…"));
  });

  it("drops the echo once the user's message is on record", async () => {
    sessionStorage.setItem(`openhands:pending-task:${ID}`, "Write hello.py");
    await openPage(RUNNING, { [`GET /api/conversations/${ID}/events`]: { body: { events: HISTORY, has_more: false } } });
    await waitFor(() => expect(screen.getAllByTestId("event-message")).toHaveLength(1));
    expect(screen.queryByTestId("pending-message")).toBeNull();
    await waitFor(() => expect(sessionStorage.getItem(`openhands:pending-task:${ID}`)).toBeNull());
  });

  it("names the browser tab after the conversation", async () => {
    await openPage();
    await waitFor(() => expect(document.title).toBe("Write hello.py"));
  });

  it("renames in place from the menu", async () => {
    const { calls } = await openPage(RUNNING, { [`PATCH /api/conversations/${ID}`]: { body: true } });
    await screen.findByText("Write hello.py", { selector: "h1" });
    fireEvent.click(screen.getByTestId("conversation-menu-button"));
    fireEvent.click(screen.getByTestId("menu-rename"));
    fireEvent.change(screen.getByTestId("title-rename-input"), { target: { value: "  Say hello  " } });
    fireEvent.click(screen.getByTestId("title-rename-save"));
    await waitFor(() => expect(calls.find((c) => c.method === "PATCH")?.body).toEqual({ title: "Say hello" }));
  });

  it("shows usage with cache hits and writes, the agent's tools and its microagents", async () => {
    const metrics = {
      accumulated_cost: 0.25,
      max_budget_per_task: 1,
      accumulated_token_usage: {
        model: "m", prompt_tokens: 5000, completion_tokens: 300, cache_read_tokens: 4000, cache_write_tokens: 900,
        context_window: 200000, per_turn_token: 0, response_id: "",
      },
      costs: [],
      response_latencies: [],
      token_usages: [{
        model: "m", prompt_tokens: 5000, completion_tokens: 300, cache_read_tokens: 4000, cache_write_tokens: 900,
        context_window: 200000, per_turn_token: 0, response_id: "",
      }],
    };
    const history = [
      ACTION_FIXTURES.system,
      ACTION_FIXTURES.message,
      { ...ACTION_FIXTURES.run, llm_metrics: metrics },
      { ...OBSERVATION_FIXTURES.agent_state_changed, id: 40, extras: { agent_state: "running", reason: "" } },
    ];
    await openPage(RUNNING, {
      [`GET /api/conversations/${ID}/events`]: { body: { events: history, has_more: false } },
      [`GET /api/conversations/${ID}/microagents`]: {
        body: { microagents: [{ name: "github", type: "knowledge", content: "", triggers: ["github", "git"], inputs: [], tools: [] }] },
      },
    });
    await waitFor(() => expect(sockets).toHaveLength(1));
    act(() => sockets[0]!.socket.fire("connect"));
    await waitFor(() => expect(screen.getByTestId("agent-status").dataset.state).toBe("running"));
    fireEvent.click(screen.getByTestId("conversation-menu-button"));
    const menu = screen.getByTestId("conversation-menu");
    expect(screen.getByTestId("menu-cost").textContent).toBe("$0.25");
    expect(screen.getByTestId("menu-budget").textContent).toBe("$1.00 (25 % used)");
    expect(screen.getByTestId("menu-cache-read").textContent).toBe("4,000");
    expect(screen.getByTestId("menu-cache-write").textContent).toBe("900");
    expect(screen.getByTestId("menu-context").textContent).toContain("5,300 of 200,000 (3 %)");
    expect(screen.getAllByTestId("menu-tool").map((t) => t.textContent)).toEqual(["execute_bash"]);
    expect(menu.textContent).toContain("CodeActAgent");
    expect((await screen.findByTestId("menu-microagent")).textContent).toContain("github");
  });
});
