/**
 * Every running agent on one page: status, current step, last action, cost
 * so far and sandbox, each row following its conversation live, with stop
 * and open actions.
 */
import { memo, useMemo, useState } from "react";
import { Link } from "react-router-dom";
import { stopConversation } from "../../api/conversations";
import type { ConversationInfo, ProviderType } from "../../api/types";
import { formatCost } from "../../format";
import { providersOf, useSettings } from "../../hooks/SettingsContext";
import { useToast } from "../../hooks/ToastContext";
import { useConversationList } from "../../hooks/useConversationList";
import { useDocumentTitle } from "../../hooks/useDocumentTitle";
import { i18n } from "../../i18n";
import { useTranslation } from "../../i18n/useTranslation";
import type { AgentActivity } from "../../state/agentActivity";
import { announceConversationsChanged } from "../../state/conversationChanges";
import {
  agentStateSentence,
  conversationStatusText,
  runtimeStatusText,
  statusText,
} from "../../state/statusText";
import { useAgentActivity } from "./useAgentActivity";
import "../../styles/overview.css";

/** The overview follows this many of the newest conversations. */
const LIST_LIMIT = 100;

function isActive(c: ConversationInfo): boolean {
  return c.status === "RUNNING" || c.status === "STARTING";
}

/** The row's status sentence: start-up first, then the latest status update, then the agent's state. */
export function overviewStatus(conversation: ConversationInfo, activity: AgentActivity, live: boolean): string {
  if (conversation.status !== "RUNNING") return conversationStatusText(conversation.status, conversation.runtime_status);
  const status = activity.status;
  if (status?.type === "error") return statusText(status.id, status.message);
  if (!live || activity.agentState === null) return i18n.t("overview:connecting");
  return agentStateSentence(activity.agentState);
}

const OverviewRow = memo(function OverviewRow({
  conversation,
  providers,
}: {
  conversation: ConversationInfo;
  providers: readonly ProviderType[];
}) {
  const { activity, live, runtimeId } = useAgentActivity(conversation, providers);
  const [stopping, setStopping] = useState(false);
  const toast = useToast();
  const { t } = useTranslation(["overview", "common"]);
  const id = conversation.conversation_id;
  const state = conversation.status === "RUNNING" ? (activity.agentState ?? "loading") : conversation.status.toLowerCase();
  const sandbox = runtimeStatusText(conversation.runtime_status) || t("notStarted");

  async function stop() {
    setStopping(true);
    try {
      await stopConversation(id);
      announceConversationsChanged();
    } catch (reason) {
      toast(t("common:failed.stop", { error: reason instanceof Error ? reason.message : String(reason) }), "error");
      setStopping(false);
    }
  }

  return (
    <tr data-testid="overview-row" data-conversation-id={id} data-state={state}>
      <th scope="row" className="overview__title">
        <Link to={`/conversations/${id}`} data-testid="overview-open">
          {conversation.title}
        </Link>
        {conversation.selected_repository && <span className="muted overview__repo">{conversation.selected_repository}</span>}
      </th>
      <td data-testid="overview-status">
        <span className={`status-dot status-dot--${state}`} aria-hidden="true" /> {overviewStatus(conversation, activity, live)}
      </td>
      <td data-testid="overview-step">{activity.step === null ? "–" : activity.step}</td>
      <td data-testid="overview-last-action" className="overview__action">
        {activity.lastAction ?? <span className="muted">{t("noneYet")}</span>}
      </td>
      <td data-testid="overview-cost">{activity.cost === null ? "–" : formatCost(activity.cost)}</td>
      <td data-testid="overview-sandbox">
        {sandbox}
        {runtimeId && <code className="overview__runtime">{runtimeId}</code>}
      </td>
      <td className="overview__actions">
        <button
          type="button"
          className="button button--small"
          data-testid="overview-stop"
          disabled={stopping}
          aria-label={t("stopLabel", { title: conversation.title })}
          onClick={() => void stop()}
        >
          {stopping ? t("stopping") : t("common:stop")}
        </button>
      </td>
    </tr>
  );
});

export default function OverviewPage() {
  const { t } = useTranslation(["overview", "common"]);
  useDocumentTitle(t("title"));
  const { conversations, error } = useConversationList(LIST_LIMIT, true);
  const { settings } = useSettings();
  const providers = useMemo(() => providersOf(settings), [settings]);
  const active = useMemo(() => (conversations ?? []).filter(isActive), [conversations]);

  return (
    <div className="page overview" data-testid="overview-page">
      <h1>{t("title")}</h1>
      <p className="muted">{t("intro")}</p>
      {error && (
        <p className="form-error" role="alert">
          {t("loadFailed", { error })}
        </p>
      )}
      {conversations === null && !error && <p className="muted" role="status">{t("common:loading")}</p>}
      {conversations !== null && active.length === 0 && (
        <p className="empty" data-testid="overview-empty">
          {t("empty")} <Link to="/">{t("startFromHome")}</Link>
        </p>
      )}
      {active.length > 0 && (
        <div className="overview__scroll">
          <table className="overview__table" data-testid="overview-table">
            <thead>
              <tr>
                <th scope="col">{t("column.conversation")}</th>
                <th scope="col">{t("column.status")}</th>
                <th scope="col">{t("column.step")}</th>
                <th scope="col">{t("column.lastAction")}</th>
                <th scope="col">{t("column.cost")}</th>
                <th scope="col">{t("column.sandbox")}</th>
                <th scope="col">
                  <span className="visually-hidden">{t("column.actions")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {active.map((c) => (
                <OverviewRow key={c.conversation_id} conversation={c} providers={providers} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
