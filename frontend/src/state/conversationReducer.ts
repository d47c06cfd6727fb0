/**
 * Folds `oh_event` payloads and stored events into the conversation's view state.
 *
 * Pure and batch-oriented: the socket layer buffers payloads and dispatches
 * them together, and the REST history arrives a page at a time, so a
 * 1,000-event history costs a handful of array copies instead of one per
 * event. Events are kept sorted by id and de-duplicated (history, replay and
 * live delivery may overlap, server-api.md §7.3).
 *
 * The agent state shown is held back until the socket is live: before that,
 * the newest agent_state_changed on record may come from an earlier run of a
 * stopped conversation, which is not what the agent does now.
 */
import type {
  AgentState,
  ErrorPayload,
  LlmMetrics,
  OhEvent,
  StatusUpdatePayload,
} from "../api/types";
import { AGENT_STATES } from "../api/types";
import { i18n } from "../i18n";
import { asDelivered } from "./eventVisibility";

export interface RuntimeStatusLine {
  id: string | null;
  type: "info" | "error";
  message: string;
  /** lastEventId when it arrived: later events make an info line stale. */
  atEventId: number;
}

export interface NoticeItem {
  key: number;
  message: string;
}

export interface Screenshot {
  eventId: number;
  url: string;
  src: string;
}

export interface ConversationState {
  /** Displayable events (they carry an id), ascending by id, no duplicates. */
  events: readonly OhEvent[];
  /** Highest id of the events kept. */
  lastEventId: number;
  /** The agent's current state: null until the socket is live (shown as `loading`). */
  agentState: AgentState | null;
  agentStateReason: string;
  /** The newest state on record, live or not; it becomes agentState once the socket is live. */
  recordedAgentState: AgentState | null;
  recordedAgentStateReason: string;
  /** Id of the agent_state_changed event the recorded state came from (-1: none or id-less). */
  agentStateEventId: number;
  /** The socket has connected: the loop runs and states on record are current. */
  live: boolean;
  status: RuntimeStatusLine | null;
  metrics: LlmMetrics | null;
  metricsEventId: number;
  screenshot: Screenshot | null;
  /** Id of the latest observation that may have changed workspace files. */
  workspaceChangeId: number;
  /** Set by the title-update payload. */
  title: string | null;
  /** `{"error": true}` payloads, newest last (bounded). */
  notices: readonly NoticeItem[];
}

export const initialConversationState: ConversationState = {
  events: [],
  lastEventId: -1,
  agentState: null,
  agentStateReason: "",
  recordedAgentState: null,
  recordedAgentStateReason: "",
  agentStateEventId: -1,
  live: false,
  status: null,
  metrics: null,
  metricsEventId: -1,
  screenshot: null,
  workspaceChangeId: -1,
  title: null,
  notices: [],
};

export type ConversationAction =
  | { type: "received"; payloads: readonly unknown[] }
  /** The socket connected: from now on the recorded agent state is the current one. */
  | { type: "live" }
  /**
   * The socket is gone for good (the loop stopped): states and status lines
   * on record belong to that run; the next run's socket brings its own.
   */
  | { type: "offline" }
  | { type: "dismiss-notice"; key: number }
  | { type: "reset" };

const MAX_NOTICES = 5;
const FILE_CHANGING: ReadonlySet<string> = new Set(["run", "run_ipython", "edit", "write", "download"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isStatusUpdate(payload: unknown): payload is StatusUpdatePayload {
  return isRecord(payload) && payload.status_update === true;
}

export function isErrorPayload(payload: unknown): payload is ErrorPayload {
  return isRecord(payload) && payload.error === true && !("observation" in payload) && !("action" in payload);
}

export function isEvent(payload: unknown): payload is OhEvent {
  return (
    isRecord(payload) &&
    (typeof payload.action === "string" || typeof payload.observation === "string")
  );
}

/** The frontend rule for a displayable event: it has id, source, message and timestamp. */
export function isDisplayable(event: OhEvent): boolean {
  return (
    typeof event.id === "number" &&
    typeof event.source === "string" &&
    typeof event.message === "string" &&
    typeof event.timestamp === "string"
  );
}

function isAgentState(value: unknown): value is AgentState {
  return typeof value === "string" && (AGENT_STATES as readonly string[]).includes(value);
}

/** Index of the first event whose id is >= `id` (binary search). */
function lowerBound(events: readonly OhEvent[], id: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((events[mid]?.id ?? -1) < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Working copy for one batch: the events array is copied at most once. */
class Draft {
  state: ConversationState;
  private events: OhEvent[] | null = null;
  private noticeKey: number;

  constructor(state: ConversationState) {
    this.state = { ...state };
    const last = state.notices[state.notices.length - 1];
    this.noticeKey = last ? last.key + 1 : 1;
  }

  private mutableEvents(): OhEvent[] {
    if (!this.events) {
      this.events = this.state.events.slice();
      this.state.events = this.events;
    }
    return this.events;
  }

  /** Inserts in id order; returns false for a duplicate id. */
  insert(event: OhEvent & { id: number }): boolean {
    const current = this.events ?? this.state.events;
    const tail = current[current.length - 1];
    if (!tail || (tail.id ?? -1) < event.id) {
      this.mutableEvents().push(event);
      return true;
    }
    const at = lowerBound(current, event.id);
    if (current[at]?.id === event.id) return false;
    this.mutableEvents().splice(at, 0, event);
    return true;
  }

  recordAgentState(state: AgentState, reason: string): void {
    const s = this.state;
    s.recordedAgentState = state;
    s.recordedAgentStateReason = reason;
    if (s.live) {
      s.agentState = state;
      s.agentStateReason = reason;
    }
  }

  addNotice(message: string): void {
    const notices = [...this.state.notices, { key: this.noticeKey++, message }];
    this.state.notices = notices.slice(-MAX_NOTICES);
  }
}

function applyEvent(draft: Draft, received: OhEvent): void {
  const s = draft.state;
  if (typeof received.id !== "number") {
    // The id-less "stopped" notice sent when a session closes (§7.5).
    if ("observation" in received && received.observation === "agent_state_changed") {
      const next = received.extras.agent_state;
      if (isAgentState(next)) draft.recordAgentState(next, received.extras.reason ?? "");
    }
    return;
  }
  if (!isDisplayable(received)) return;
  const event = asDelivered(received);
  if (!event || !draft.insert(event as OhEvent & { id: number })) return;
  const id = received.id;
  if (id > s.lastEventId) s.lastEventId = id;

  if ("observation" in event) {
    if (FILE_CHANGING.has(event.observation) && id > s.workspaceChangeId) s.workspaceChangeId = id;
    if (event.observation === "agent_state_changed" && id >= s.agentStateEventId) {
      if (isAgentState(event.extras.agent_state)) {
        draft.recordAgentState(event.extras.agent_state, event.extras.reason ?? "");
        s.agentStateEventId = id;
      }
    } else if (event.observation === "browse" && event.extras.screenshot && id > (s.screenshot?.eventId ?? -1)) {
      const shot = event.extras.screenshot;
      s.screenshot = {
        eventId: id,
        url: event.extras.url,
        src: shot.startsWith("data:") ? shot : `data:image/png;base64,${shot}`,
      };
    }
  }
  if (event.llm_metrics && id > s.metricsEventId) {
    s.metrics = event.llm_metrics;
    s.metricsEventId = id;
  }
}

function applyStatus(draft: Draft, payload: StatusUpdatePayload): void {
  if (typeof payload.conversation_title === "string") {
    draft.state.title = payload.conversation_title;
    return;
  }
  draft.state.status = {
    id: typeof payload.id === "string" ? payload.id : null,
    type: payload.type === "error" ? "error" : "info",
    message: typeof payload.message === "string" ? payload.message : "",
    atEventId: draft.state.lastEventId,
  };
}

export function conversationReducer(state: ConversationState, action: ConversationAction): ConversationState {
  switch (action.type) {
    case "reset":
      return initialConversationState;
    case "live":
      if (state.live) return state;
      return { ...state, live: true, agentState: state.recordedAgentState, agentStateReason: state.recordedAgentStateReason };
    case "offline":
      if (!state.live && state.agentState === null && state.status === null) return state;
      return { ...state, live: false, agentState: null, agentStateReason: "", status: null };
    case "dismiss-notice":
      return { ...state, notices: state.notices.filter((n) => n.key !== action.key) };
    case "received": {
      if (action.payloads.length === 0) return state;
      const draft = new Draft(state);
      for (const payload of action.payloads) {
        if (isStatusUpdate(payload)) applyStatus(draft, payload);
        else if (isEvent(payload)) applyEvent(draft, payload);
        else if (isErrorPayload(payload)) {
          draft.addNotice(payload.error_code === 401 ? i18n.t("common:sessionExpired") : payload.message);
        }
      }
      return draft.state;
    }
  }
}

/** The action the agent is waiting on the user to confirm, if any. */
export function pendingConfirmation(events: readonly OhEvent[]): OhEvent | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (!event || !("action" in event)) continue;
    const args = event.args as { confirmation_state?: unknown };
    if (args.confirmation_state === "awaiting_confirmation") return event;
    if (event.source === "agent" && event.action !== "change_agent_state") return null;
  }
  return null;
}
