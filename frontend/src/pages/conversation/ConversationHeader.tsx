import type { UserAction } from "../../api/types";
import type { ConversationState } from "../../state/conversationReducer";
import { AgentControls } from "./AgentControls";
import { AgentStatusBadge } from "./AgentStatusBadge";
import { MetricsBar } from "./MetricsBar";

interface Props {
  title: string;
  state: ConversationState;
  connected: boolean;
  onSend(action: UserAction): boolean;
}

export function ConversationHeader({ title, state, connected, onSend }: Props) {
  return (
    <header className="conversation-header">
      <h1 className="conversation-header__title" data-testid="conversation-page-title" title={title}>
        {title}
      </h1>
      <AgentStatusBadge state={state.agentState} />
      <MetricsBar metrics={state.metrics} />
      <AgentControls state={state.agentState} disabled={!connected} onSend={onSend} />
    </header>
  );
}
