import { describe, expect, it } from "vitest";
import type { OhEvent } from "../api/types";
import { ACTION_FIXTURES, OBSERVATION_FIXTURES } from "../test/fixtures/events";
import {
  conversationReducer,
  initialConversationState,
  pendingConfirmation,
  type ConversationState,
} from "./conversationReducer";

function receive(state: ConversationState, ...payloads: unknown[]): ConversationState {
  return conversationReducer(state, { type: "received", payloads });
}

function message(id: number, content = `m${id}`): OhEvent {
  return { ...ACTION_FIXTURES.message, id, message: content, args: { ...ACTION_FIXTURES.message.args, content } };
}

function stateChanged(id: number | undefined, agent_state: string, source = "environment"): OhEvent {
  const event = {
    ...OBSERVATION_FIXTURES.agent_state_changed,
    source,
    extras: { agent_state, reason: "" },
  } as OhEvent;
  if (id === undefined) delete (event as { id?: number }).id;
  else event.id = id;
  return event;
}

const ids = (s: ConversationState) => s.events.map((e) => e.id);

/** The state once the socket connected: recorded agent states are current. */
const live = conversationReducer(initialConversationState, { type: "live" });

function stored(event: OhEvent, source: "agent" | "user" | "environment"): OhEvent {
  return { ...event, source } as OhEvent;
}

describe("conversationReducer: events", () => {
  it("appends events in id order and tracks the last id", () => {
    const s = receive(initialConversationState, message(0), message(1), message(2));
    expect(ids(s)).toEqual([0, 1, 2]);
    expect(s.lastEventId).toBe(2);
  });

  it("drops duplicate ids (replay and live delivery overlap)", () => {
    let s = receive(initialConversationState, message(0), message(1));
    s = receive(s, message(1, "again"), message(2), message(0));
    expect(ids(s)).toEqual([0, 1, 2]);
    expect(s.events[1]?.message).toBe("m1");
  });

  it("inserts a late event at its place", () => {
    const s = receive(initialConversationState, message(0), message(3), message(5), message(4), message(1));
    expect(ids(s)).toEqual([0, 1, 3, 4, 5]);
    expect(s.lastEventId).toBe(5);
  });

  it("keeps the identity of events already held (rows stay memoised)", () => {
    const first = receive(initialConversationState, message(0), message(1));
    const second = receive(first, message(2));
    expect(second.events[0]).toBe(first.events[0]);
    expect(second.events[1]).toBe(first.events[1]);
    expect(first.events).toHaveLength(2);
  });

  it("returns the same state for an empty or duplicate-only batch", () => {
    const s = receive(initialConversationState, message(0));
    expect(conversationReducer(s, { type: "received", payloads: [] })).toBe(s);
    expect(receive(s, message(0)).events).toBe(s.events);
  });

  it("ignores payloads that are not displayable events", () => {
    const noTimestamp = { ...message(4) };
    delete (noTimestamp as { timestamp?: string }).timestamp;
    const s = receive(initialConversationState, noTimestamp, { hello: "world" }, null, 42, "text");
    expect(s.events).toHaveLength(0);
  });

  it("folds a large replay quickly", () => {
    const batch = Array.from({ length: 5000 }, (_, i) => message(i));
    const started = performance.now();
    let s = receive(initialConversationState, ...batch);
    // and one at a time, as a slow live stream would arrive
    for (let i = 5000; i < 6000; i++) s = receive(s, message(i));
    expect(s.events).toHaveLength(6000);
    expect(performance.now() - started).toBeLessThan(1500);
  });
});

describe("conversationReducer: agent state", () => {
  it("takes the state from agent_state_changed", () => {
    const s = receive(live, stateChanged(1, "loading"), stateChanged(2, "running"));
    expect(s.agentState).toBe("running");
    expect(s.agentStateEventId).toBe(2);
  });

  it("ignores an older state that arrives late", () => {
    const s = receive(live, stateChanged(5, "finished"), stateChanged(3, "running"));
    expect(s.agentState).toBe("finished");
  });

  it("uses the held-back last state that replay sends after the other events", () => {
    // Replay: events 0..9 without state changes, then the last state (id 7).
    const replay = [0, 1, 2, 3, 4, 5, 6, 8, 9].map((id) => message(id));
    const s = receive(live, ...replay, stateChanged(7, "awaiting_user_input"));
    expect(s.agentState).toBe("awaiting_user_input");
    expect(s.lastEventId).toBe(9);
  });

  it("applies the id-less stopped notice sent when a session closes", () => {
    let s = receive(live, stateChanged(4, "running"));
    s = receive(s, stateChanged(undefined, "stopped", "agent"));
    expect(s.agentState).toBe("stopped");
    expect(s.events).toHaveLength(1);
  });

  it("ignores unknown state values", () => {
    const s = receive(live, stateChanged(1, "running"), stateChanged(2, "dancing"));
    expect(s.agentState).toBe("running");
  });

  it("holds a state from the stored history back until the socket is live", () => {
    // A stopped conversation's history ends in its last run's state: not what the agent does now.
    let s = receive(initialConversationState, message(0), stateChanged(1, "finished"));
    expect(s.agentState).toBeNull();
    expect(s.recordedAgentState).toBe("finished");
    // Restarted: the replay after the history brings the new run's states.
    s = receive(s, stateChanged(2, "loading"), stateChanged(3, "awaiting_user_input"));
    expect(s.agentState).toBeNull();
    s = conversationReducer(s, { type: "live" });
    expect(s.agentState).toBe("awaiting_user_input");
    expect(s.agentStateEventId).toBe(3);
  });

  it("shows the newest recorded state when the socket brings nothing newer (a reload)", () => {
    let s = receive(initialConversationState, message(0), stateChanged(1, "running"), message(2), stateChanged(3, "paused"));
    s = conversationReducer(s, { type: "live" });
    expect(s.agentState).toBe("paused");
    s = receive(s, stateChanged(4, "running"));
    expect(s.agentState).toBe("running");
    expect(conversationReducer(s, { type: "live" })).toBe(s);
  });
});

describe("conversationReducer: one chat whichever way events came", () => {
  it("keeps what the live push keeps, relabelled as the agent's", () => {
    const output = stored({ ...OBSERVATION_FIXTURES.run, id: 3 }, "environment");
    const state = stored({ ...OBSERVATION_FIXTURES.agent_state_changed, id: 4 }, "environment");
    const s = receive(initialConversationState, output, state);
    expect(ids(s)).toEqual([3, 4]);
    expect(s.events.map((e) => e.source)).toEqual(["agent", "agent"]);
  });

  it("drops what only the stored history has: environment actions and other observations, recall actions", () => {
    const envAction = stored({ ...ACTION_FIXTURES.change_agent_state, id: 2 }, "environment");
    const success = stored({ ...OBSERVATION_FIXTURES.success, id: 3 }, "environment");
    const recall = stored({ ...ACTION_FIXTURES.recall, id: 4 }, "user");
    const s = receive(initialConversationState, message(1), envAction, success, recall, message(5));
    expect(ids(s)).toEqual([1, 5]);
  });

  it("keeps the user's own state changes", () => {
    const pause = stored({ ...ACTION_FIXTURES.change_agent_state, id: 9 }, "user");
    expect(ids(receive(initialConversationState, pause))).toEqual([9]);
  });

  it("merges history pages that arrive newest first with the replay after them, without duplicates", () => {
    let s = receive(initialConversationState, message(200), message(201));
    s = receive(s, message(100), message(101));
    s = receive(s, message(0), message(1));
    s = receive(s, message(201), message(202));
    expect(ids(s)).toEqual([0, 1, 100, 101, 200, 201, 202]);
    expect(s.lastEventId).toBe(202);
  });
});

describe("conversationReducer: status updates and other payloads", () => {
  it("keeps the latest runtime status message", () => {
    let s = receive(initialConversationState, {
      status_update: true,
      type: "info",
      id: "STATUS$BUILDING_RUNTIME",
      message: "Building runtime...",
    });
    expect(s.status).toEqual({ id: "STATUS$BUILDING_RUNTIME", type: "info", message: "Building runtime...", atEventId: -1 });
    s = receive(s, message(0), { status_update: true, type: "info", id: "STATUS$READY", message: "Ready" });
    expect(s.status?.id).toBe("STATUS$READY");
    expect(s.status?.atEventId).toBe(0);
    expect(s.events).toHaveLength(1);
  });

  it("records error statuses", () => {
    const s = receive(initialConversationState, {
      status_update: true,
      type: "error",
      id: "STATUS$ERROR_LLM_AUTHENTICATION",
      message: "Error authenticating with the LLM provider.",
    });
    expect(s.status?.type).toBe("error");
  });

  it("takes the conversation title from a title update", () => {
    const s = receive(initialConversationState, {
      status_update: true,
      type: "info",
      message: "5f3c0e",
      conversation_title: "Fix the failing test",
    });
    expect(s.title).toBe("Fix the failing test");
    expect(s.status).toBeNull();
  });

  it("turns error payloads into dismissable notices", () => {
    let s = receive(initialConversationState, { error: true, message: "Failed to create agent session: RuntimeError" });
    s = receive(s, { error: true, message: "x", error_code: 401 });
    expect(s.notices.map((n) => n.message)).toEqual(["Failed to create agent session: RuntimeError", "Session expired."]);
    s = conversationReducer(s, { type: "dismiss-notice", key: s.notices[0]!.key });
    expect(s.notices).toHaveLength(1);
  });

  it("does not mistake an error observation for an error payload", () => {
    const s = receive(initialConversationState, OBSERVATION_FIXTURES.error);
    expect(s.notices).toHaveLength(0);
    expect(s.events).toHaveLength(1);
  });

  it("keeps metrics from the newest event that carries them", () => {
    const newer = { ...ACTION_FIXTURES.run, id: 10, llm_metrics: { ...ACTION_FIXTURES.run.llm_metrics!, accumulated_cost: 0.5 } };
    const s = receive(initialConversationState, newer, ACTION_FIXTURES.run);
    expect(s.metrics?.accumulated_cost).toBe(0.5);
  });

  it("keeps the last browser screenshot", () => {
    const s = receive(initialConversationState, OBSERVATION_FIXTURES.browse);
    expect(s.screenshot).toEqual({ eventId: 11, url: "http://localhost:8000", src: "data:image/png;base64,iVBORw0KGgo=" });
    const bare = {
      ...OBSERVATION_FIXTURES.browse,
      id: 12,
      extras: { ...OBSERVATION_FIXTURES.browse.extras, screenshot: "iVBORw0KGgo=" },
    };
    expect(receive(s, bare).screenshot?.src).toBe("data:image/png;base64,iVBORw0KGgo=");
  });

  it("notes observations that may change workspace files", () => {
    const s = receive(initialConversationState, OBSERVATION_FIXTURES.edit, OBSERVATION_FIXTURES.think);
    expect(s.workspaceChangeId).toBe(19);
  });

  it("resets", () => {
    const s = receive(initialConversationState, message(1));
    expect(conversationReducer(s, { type: "reset" })).toBe(initialConversationState);
  });
});

describe("conversationReducer: offline (the loop was stopped)", () => {
  it("forgets the last run's live state and status but keeps the events", () => {
    let s = receive(live, message(1), stateChanged(2, "finished"), {
      status_update: true,
      type: "error",
      id: "STATUS$ERROR_RUNTIME_DISCONNECTED",
      message: "",
    });
    expect(s.agentState).toBe("finished");
    s = conversationReducer(s, { type: "offline" });
    expect(s.live).toBe(false);
    expect(s.agentState).toBeNull();
    expect(s.status).toBeNull();
    expect(ids(s)).toEqual([1, 2]);
    expect(s.lastEventId).toBe(2);
    // The next run's socket: its replayed state becomes current once live; nothing is doubled.
    s = receive(s, message(1), stateChanged(3, "awaiting_user_input"));
    expect(s.agentState).toBeNull();
    s = conversationReducer(s, { type: "live" });
    expect(s.agentState).toBe("awaiting_user_input");
    expect(ids(s)).toEqual([1, 2, 3]);
  });

  it("is a no-op when nothing is live", () => {
    expect(conversationReducer(initialConversationState, { type: "offline" })).toBe(initialConversationState);
  });
});

describe("pendingConfirmation", () => {
  it("finds the action awaiting confirmation", () => {
    const awaiting = {
      ...ACTION_FIXTURES.run,
      id: 40,
      args: { ...ACTION_FIXTURES.run.args, confirmation_state: "awaiting_confirmation" as const },
    };
    const s = receive(initialConversationState, message(1), awaiting, stateChanged(41, "awaiting_user_confirmation"));
    expect(pendingConfirmation(s.events)?.id).toBe(40);
  });

  it("is null when the last agent action is confirmed", () => {
    const s = receive(initialConversationState, ACTION_FIXTURES.run, OBSERVATION_FIXTURES.run);
    expect(pendingConfirmation(s.events)).toBeNull();
  });
});
