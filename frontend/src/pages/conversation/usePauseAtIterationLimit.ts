/**
 * When the agent hits its iteration or budget limit the server reports an
 * error status ("Agent reached maximum ..."); like the 0.59 UI we then pause
 * the agent, so a message from the user can continue the task.
 */
import { useEffect, useRef } from "react";
import type { UserAction } from "../../api/types";
import type { RuntimeStatusLine } from "../../state/conversationReducer";

export function isLimitReached(status: RuntimeStatusLine | null): boolean {
  return status?.type === "error" && status.message.startsWith("Agent reached maximum");
}

export function usePauseAtIterationLimit(status: RuntimeStatusLine | null, send: (action: UserAction) => boolean) {
  const handled = useRef<RuntimeStatusLine | null>(null);
  useEffect(() => {
    if (!status || handled.current === status || !isLimitReached(status)) return;
    handled.current = status;
    send({ action: "change_agent_state", args: { agent_state: "paused" } });
  }, [status, send]);
}
