import type { ConversationStatus, UserAction } from "../../api/types";
import type { ConversationState } from "../../state/conversationReducer";
import { AgentControls } from "./AgentControls";
import { AgentStatusBadge } from "./AgentStatusBadge";
import { LifecycleButton } from "./ConversationLifecycle";
import { MetricsBar } from "./MetricsBar";

interface Props {
  title: string;
  state: ConversationState;
  connected: boolean;
  /** The runtime failed before the agent started: the badge says error, not loading. */
  runtimeFailed?: boolean;
  onSend(action: UserAction): boolean;
  /** The conversation's own stop / start (its loop and sandbox). */
  lifecycle?: {
    status: ConversationStatus | null | undefined;
    pending: "stopping" | "starting" | null;
    onStop(): void;
    onStart(): void;
  };
}

export function ConversationHeader({ title, state, connected, runtimeFailed = false, onSend, lifecycle }: Props) {
  const stopped = lifecycle?.status === "STOPPED" && lifecycle.pending === null;
  const badgeState = stopped ? "stopped" : state.agentState === null && runtimeFailed ? "error" : state.agentState;
  return (
    <header className="conversation-header">
      <h1 className="conversation-header__title" data-testid="conversation-page-title" title={title}>
        {title}
      </h1>
      <AgentStatusBadge state={badgeState} />
      <MetricsBar metrics={state.metrics} />
      <AgentControls state={state.agentState} disabled={!connected} onSend={onSend} />
      {lifecycle && <LifecycleButton {...lifecycle} />}
    </header>
  );
}
