/**
 * One event in the chat. A dispatch table maps every action and observation
 * type of events.md to its view (null: never shown), so adding a type to
 * api/types.ts without a view is a compile error.
 */
import { memo, type ComponentType } from "react";
import { useTranslation } from "../../../i18n/useTranslation";
import type { ActionType, AgentAction, AgentObservation, ObservationType, OhEvent } from "../../../api/types";
import { isChatVisible } from "../../../state/eventVisibility";
import { BrowseInteractiveView, BrowseView, BrowserOutputView } from "./views/browserViews";
import { CmdOutputView, CmdRunView, IPythonOutputView, IPythonRunView } from "./views/commandViews";
import {
  FileDownloadView,
  FileEditResultView,
  FileEditView,
  FileReadResultView,
  FileReadView,
  FileWriteResultView,
  FileWriteView,
} from "./views/fileViews";
import {
  FinishView,
  MessageView,
  RejectView,
  SystemMessageView,
  ThinkActionView,
  ThinkObservationView,
} from "./views/messageViews";
import {
  AgentStateErrorView,
  ChangeAgentStateView,
  CondensationRequestView,
  CondensationView,
  CondenseResultView,
  ErrorView,
  RecallResultView,
  SuccessView,
  UserRejectView,
} from "./views/systemViews";
import {
  DelegateResultView,
  DelegateView,
  McpResultView,
  McpView,
  TaskTrackingResultView,
  TaskTrackingView,
} from "./views/toolViews";

type ActionViews = { [K in ActionType]: ComponentType<{ event: Extract<AgentAction, { action: K }> }> | null };
type ObservationViews = {
  [K in ObservationType]: ComponentType<{ event: Extract<AgentObservation, { observation: K }> }> | null;
};

export const ACTION_VIEWS: ActionViews = {
  message: MessageView,
  system: SystemMessageView,
  run: CmdRunView,
  run_ipython: IPythonRunView,
  browse: BrowseView,
  browse_interactive: BrowseInteractiveView,
  read: FileReadView,
  write: FileWriteView,
  edit: FileEditView,
  call_tool_mcp: McpView,
  think: ThinkActionView,
  finish: FinishView,
  reject: RejectView,
  delegate: DelegateView,
  // Never shown: the replay on connect skips recall actions (server-api.md §7.4), so the chat
  // drops them whichever way they come (state/eventVisibility.ts asDelivered).
  recall: null,
  change_agent_state: ChangeAgentStateView,
  null: null,
  condensation: CondensationView,
  condensation_request: CondensationRequestView,
  task_tracking: TaskTrackingView,
};

export const OBSERVATION_VIEWS: ObservationViews = {
  null: null,
  run: CmdOutputView,
  run_ipython: IPythonOutputView,
  browse: BrowserOutputView,
  read: FileReadResultView,
  write: FileWriteResultView,
  edit: FileEditResultView,
  delegate: DelegateResultView,
  success: SuccessView,
  error: ErrorView,
  agent_state_changed: AgentStateErrorView,
  user_rejected: UserRejectView,
  condense: CondenseResultView,
  think: ThinkObservationView,
  recall: RecallResultView,
  mcp: McpResultView,
  download: FileDownloadView,
  task_tracking: TaskTrackingResultView,
};

type AnyView = ComponentType<{ event: OhEvent }>;

function viewFor(event: OhEvent): AnyView | null {
  const view =
    "action" in event
      ? (ACTION_VIEWS as Record<string, unknown>)[event.action]
      : (OBSERVATION_VIEWS as Record<string, unknown>)[event.observation];
  return (view as AnyView | null | undefined) ?? null;
}

function UnknownEventView({ event }: { event: OhEvent }) {
  const { t } = useTranslation("conversation");
  return (
    <article className="event event--compact" data-testid="event-unknown" data-event-id={event.id}>
      <p className="compact-line muted">{event.message || t("ev.unknown")}</p>
    </article>
  );
}

/** Memoised on the event object: the reducer keeps identities, so old rows never re-render. */
export const EventView = memo(function EventView({ event }: { event: OhEvent }) {
  if (!isChatVisible(event)) return null;
  const View = viewFor(event);
  if (View) return <View event={event} />;
  const known = "action" in event ? event.action in ACTION_VIEWS : event.observation in OBSERVATION_VIEWS;
  return known ? null : <UnknownEventView event={event} />;
});
