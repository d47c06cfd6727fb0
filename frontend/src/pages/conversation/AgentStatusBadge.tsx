import type { AgentState } from "../../api/types";
import { AGENT_STATE_TEXT } from "../../state/statusText";

/** The raw state value is the badge's text (tests read it); the title explains it. */
export function AgentStatusBadge({ state }: { state: AgentState | null }) {
  const value = state ?? "loading";
  return (
    <span
      className={`agent-status agent-status--${value}`}
      data-testid="agent-status"
      role="status"
      aria-label={`Agent status: ${AGENT_STATE_TEXT[value]}`}
      title={AGENT_STATE_TEXT[value]}
    >
      {value}
    </span>
  );
}
