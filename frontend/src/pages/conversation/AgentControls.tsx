import { useTranslation } from "../../i18n/useTranslation";
import type { AgentState, UserAction } from "../../api/types";

type Target = "paused" | "running" | "stopped";

const CAN_PAUSE: ReadonlySet<AgentState> = new Set(["running"]);
const CAN_RESUME: ReadonlySet<AgentState> = new Set(["paused"]);
const CAN_STOP: ReadonlySet<AgentState> = new Set([
  "running",
  "paused",
  "awaiting_user_confirmation",
  "rate_limited",
]);

export function changeState(agent_state: Target | "user_confirmed" | "user_rejected"): UserAction {
  return { action: "change_agent_state", args: { agent_state } };
}

interface Props {
  state: AgentState | null;
  disabled: boolean;
  onSend(action: UserAction): boolean;
}

/** Pause / resume / stop. Buttons stay in place and are disabled when they do not apply. */
export function AgentControls({ state, disabled, onSend }: Props) {
  const { t } = useTranslation("conversation");
  const has = (set: ReadonlySet<AgentState>) => !disabled && state !== null && set.has(state);
  return (
    <div className="agent-controls" role="group" aria-label={t("controls.group")}>
      {state === "paused" ? (
        <button
          type="button"
          className="button"
          data-testid="resume-agent"
          aria-label={t("controls.resumeLabel")}
          disabled={!has(CAN_RESUME)}
          onClick={() => onSend(changeState("running"))}
        >
          ▶ {t("controls.resume")}
        </button>
      ) : (
        <button
          type="button"
          className="button"
          data-testid="pause-agent"
          aria-label={t("controls.pauseLabel")}
          disabled={!has(CAN_PAUSE)}
          onClick={() => onSend(changeState("paused"))}
        >
          ❚❚ {t("controls.pause")}
        </button>
      )}
      <button
        type="button"
        className="button button--danger"
        data-testid="stop-agent"
        aria-label={t("controls.stopLabel")}
        disabled={!has(CAN_STOP)}
        onClick={() => onSend(changeState("stopped"))}
      >
        ■ {t("controls.stop")}
      </button>
    </div>
  );
}
