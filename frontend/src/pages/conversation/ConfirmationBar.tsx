import { useMemo } from "react";
import type { OhEvent, UserAction } from "../../api/types";
import { pendingConfirmation } from "../../state/conversationReducer";
import { changeState } from "./AgentControls";

function describe(event: OhEvent | null): string {
  if (!event || !("action" in event)) return "The agent wants to run an action.";
  switch (event.action) {
    case "run":
      return `Run: ${event.args.command}`;
    case "run_ipython":
      return "Run Python code";
    case "edit":
    case "write":
      return `Change file ${event.args.path}`;
    case "browse":
      return `Open ${event.args.url}`;
    default:
      return event.message || `Action: ${event.action}`;
  }
}

/** Shown in confirmation mode while the agent waits for approval. */
export function ConfirmationBar({
  events,
  disabled,
  onSend,
}: {
  events: readonly OhEvent[];
  disabled: boolean;
  onSend(action: UserAction): boolean;
}) {
  const pending = useMemo(() => pendingConfirmation(events), [events]);
  return (
    <div className="confirmation-bar" role="region" aria-label="Confirm the agent's action" data-testid="confirmation-bar">
      <p className="confirmation-bar__text">
        <strong>Confirm this action?</strong> <span className="confirmation-bar__what">{describe(pending)}</span>
      </p>
      <div className="confirmation-bar__buttons">
        <button
          type="button"
          className="button button--primary"
          data-testid="confirm-action"
          aria-label="Confirm the action"
          disabled={disabled}
          onClick={() => onSend(changeState("user_confirmed"))}
        >
          Confirm
        </button>
        <button
          type="button"
          className="button button--danger"
          data-testid="reject-action"
          aria-label="Reject the action"
          disabled={disabled}
          onClick={() => onSend(changeState("user_rejected"))}
        >
          Reject
        </button>
      </div>
    </div>
  );
}
