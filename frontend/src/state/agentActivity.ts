/**
 * What the overview shows of one running agent, folded from its newest stored
 * events and then its live socket payloads: state, step, last action, cost and
 * the latest status update. Pure, like the conversation reducer.
 */
import type { AgentState, OhEvent } from "../api/types";
import { AGENT_STATES } from "../api/types";
import { i18n } from "../i18n";
import { isErrorPayload, isEvent, isStatusUpdate } from "./conversationReducer";

export interface AgentActivity {
  agentState: AgentState | null;
  /** Id of the event the state came from (older ones never override it). */
  stateEventId: number;
  lastAction: string | null;
  lastActionId: number;
  /** Id of the newest user message: the current task began there. */
  taskStartId: number;
  /** Ids of the agent's work actions in the current task (older ones are dropped). */
  workIds: readonly number[];
  /** Work actions of the current task so far (the agent's step); null before the first. */
  step: number | null;
  cost: number | null;
  metricsEventId: number;
  /** The newest status update or error payload, as sent. */
  status: { id: string | null; type: "info" | "error"; message: string } | null;
  lastEventId: number;
}

export const initialActivity: AgentActivity = {
  agentState: null,
  stateEventId: -1,
  lastAction: null,
  lastActionId: -1,
  taskStartId: -1,
  workIds: [],
  step: null,
  cost: null,
  metricsEventId: -1,
  status: null,
  lastEventId: -1,
};

/** Agent actions that are bookkeeping rather than work. */
const NOT_WORK: ReadonlySet<string> = new Set(["system", "change_agent_state", "recall", "null", "condensation_request"]);

function clip(text: string, max = 80): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** One line saying what an agent action did; null for bookkeeping actions. */
export function describeAction(event: OhEvent): string | null {
  if (!("action" in event) || event.source !== "agent" || NOT_WORK.has(event.action)) return null;
  switch (event.action) {
    case "run":
      return i18n.t("overview:action.run", { command: clip(event.args.command) });
    case "run_ipython":
      return i18n.t("overview:action.run_ipython", { code: clip(event.args.code) });
    case "read":
      return i18n.t("overview:action.read", { path: event.args.path });
    case "write":
      return i18n.t("overview:action.write", { path: event.args.path });
    case "edit":
      return i18n.t("overview:action.edit", { path: event.args.path });
    case "browse":
      return i18n.t("overview:action.browse", { url: clip(event.args.url) });
    case "browse_interactive":
      return i18n.t("overview:action.browse_interactive");
    case "think":
      return i18n.t("overview:action.think");
    case "finish":
      return i18n.t("overview:action.finish");
    case "reject":
      return i18n.t("overview:action.reject");
    case "delegate":
      return i18n.t("overview:action.delegate", { agent: event.args.agent });
    case "call_tool_mcp":
      return i18n.t("overview:action.call_tool_mcp", { name: event.args.name });
    case "task_tracking":
      return i18n.t("overview:action.task_tracking");
    case "condensation":
      return i18n.t("overview:action.condensation");
    case "message":
      return i18n.t("overview:action.message", { content: clip(event.args.content) });
    default:
      return null;
  }
}

function isAgentState(value: unknown): value is AgentState {
  return typeof value === "string" && (AGENT_STATES as readonly string[]).includes(value);
}

function isUserMessage(event: OhEvent): boolean {
  return event.source === "user" && "action" in event && event.action === "message";
}

function stepOf(workIds: readonly number[]): number | null {
  return workIds.length === 0 ? null : workIds.length;
}

function foldEvent(a: AgentActivity, event: OhEvent): AgentActivity {
  const id = typeof event.id === "number" ? event.id : null;
  let next = a;
  const edit = () => (next === a ? (next = { ...a }) : next);
  if (id !== null && id > a.lastEventId) edit().lastEventId = id;
  if ("observation" in event && event.observation === "agent_state_changed") {
    const state = event.extras.agent_state;
    // The id-less "stopped" notice of a closing session is the newest word.
    if (isAgentState(state) && (id === null || id >= a.stateEventId)) {
      edit().agentState = state;
      if (id !== null) next.stateEventId = id;
    }
  }
  if (id !== null && isUserMessage(event) && id > a.taskStartId) {
    edit().taskStartId = id;
    next.workIds = next.workIds.filter((workId) => workId > id);
    next.step = stepOf(next.workIds);
  }
  const text = id !== null ? describeAction(event) : null;
  if (id !== null && text) {
    if (id > next.taskStartId && !next.workIds.includes(id)) {
      edit().workIds = [...next.workIds, id];
      next.step = stepOf(next.workIds);
    }
    if (id > a.lastActionId) {
      edit().lastAction = text;
      next.lastActionId = id;
    }
  }
  if (id !== null && event.llm_metrics && id > a.metricsEventId) {
    edit().cost = event.llm_metrics.accumulated_cost;
    next.metricsEventId = id;
  }
  return next;
}

/** Folds stored events or socket payloads (events, status updates, error payloads), in any order. */
export function foldActivity(activity: AgentActivity, payloads: readonly unknown[]): AgentActivity {
  let a = activity;
  for (const payload of payloads) {
    if (isStatusUpdate(payload)) {
      if (typeof payload.conversation_title === "string") continue;
      a = {
        ...a,
        status: {
          id: typeof payload.id === "string" ? payload.id : null,
          type: payload.type === "error" ? "error" : "info",
          message: typeof payload.message === "string" ? payload.message : "",
        },
      };
    } else if (isEvent(payload)) {
      a = foldEvent(a, payload);
    } else if (isErrorPayload(payload)) {
      a = { ...a, status: { id: null, type: "error", message: payload.message } };
    }
  }
  return a;
}
