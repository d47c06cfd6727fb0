/** The agent's tools and class, from the conversation's system message event. */
import type { OhEvent } from "../api/types";

export interface AgentToolInfo {
  name: string;
  description: string;
}

export interface AgentSetup {
  agentClass: string | null;
  tools: AgentToolInfo[];
}

function toolOf(entry: unknown): AgentToolInfo | null {
  const fn = (entry as { function?: { name?: unknown; description?: unknown } } | null)?.function;
  if (!fn || typeof fn.name !== "string") return null;
  const description = typeof fn.description === "string" ? fn.description : "";
  // The first sentence says what the tool is for; the rest is usage detail for the model.
  const first = description.split(/(?<=\.)\s|\n/, 1)[0] ?? "";
  return { name: fn.name, description: first.trim() };
}

export function agentSetup(events: readonly OhEvent[]): AgentSetup | null {
  for (const event of events) {
    if ("action" in event && event.action === "system") {
      const tools = (event.args.tools ?? []).map(toolOf).filter((t): t is AgentToolInfo => t !== null);
      return { agentClass: event.args.agent_class, tools };
    }
  }
  return null;
}
