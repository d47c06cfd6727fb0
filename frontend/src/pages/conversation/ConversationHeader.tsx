import type { UserAction } from "../../api/types";
import type { ConversationState } from "../../state/conversationReducer";
import { AgentControls } from "./AgentControls";
import { AgentStatusBadge } from "./AgentStatusBadge";
import { MetricsBar } from "./MetricsBar";

interface Props {
  title: string;
  state: ConversationState;
  connected: boolean;
  /** The runtime failed before the agent started: the badge says error, not loading. */
  runtimeFailed?: boolean;
  onSend(action: UserAction): boolean;
}

export function ConversationHeader({ title, state, connected, runtimeFailed = false, onSend }: Props) {
  const badgeState = state.agentState === null && runtimeFailed ? "error" : state.agentState;
  return (
    <header className="conversation-header">
      <h1 className="conversation-header__title" data-testid="conversation-page-title" title={title}>
        {title}
      </h1>
      <AgentStatusBadge state={badgeState} />
      <MetricsBar metrics={state.metrics} />
      <AgentControls state={state.agentState} disabled={!connected} onSend={onSend} />
    </header>
  );
}
