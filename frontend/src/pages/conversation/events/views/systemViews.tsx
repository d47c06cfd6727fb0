/** Bookkeeping events shown compactly: recall results, state changes, condensation, results, errors. */
import type {
  AgentStateChangedObservation,
  ChangeAgentStateAction,
  CondensationAction,
  CondensationRequestAction,
  CondenseObservation,
  ErrorObservation,
  RecallObservation,
  SuccessObservation,
  UserRejectObservation,
} from "../../../../api/types";
import { Trans, useTranslation } from "../../../../i18n/useTranslation";
import { Collapsible } from "../../display/Collapsible";
import { Markdown } from "../../display/Markdown";
import { EventShell } from "../EventShell";

function WorkspaceContext({ extras }: { extras: RecallObservation["extras"] }) {
  const { t } = useTranslation("conversation");
  const rows: [string, string][] = [
    [t("ev.context.repository"), extras.repo_name],
    [t("ev.context.directory"), extras.repo_directory],
    [t("ev.context.branch"), extras.repo_branch],
    [t("ev.context.workingDir"), extras.working_dir],
    [t("ev.context.date"), extras.date],
    [t("ev.context.hosts"), Object.keys(extras.runtime_hosts ?? {}).join(", ")],
    [t("ev.context.secrets"), Object.keys(extras.custom_secrets_descriptions ?? {}).join(", ")],
  ];
  const texts = [extras.repo_instructions, extras.additional_agent_instructions, extras.conversation_instructions].filter(
    (t) => t && t.trim(),
  );
  return (
    <>
      <dl className="facts">
        {rows
          .filter(([, value]) => value)
          .map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{value}</dd>
            </div>
          ))}
      </dl>
      {texts.map((t, i) => (
        <Markdown key={i} text={t} />
      ))}
    </>
  );
}

export function RecallResultView({ event }: { event: RecallObservation }) {
  const { t } = useTranslation("conversation");
  const { extras } = event;
  const knowledge = extras.microagent_knowledge ?? [];
  const summary =
    extras.recall_type === "workspace_context"
      ? t("ev.addedContext")
      : knowledge.length
        ? t("ev.addedKnowledgeNamed", { names: knowledge.map((k) => k.name).join(", ") })
        : t("ev.addedKnowledge");
  return (
    <EventShell event={event} variant="compact" label={summary}>
      <Collapsible summary={<span className="muted">{summary}</span>}>
        {() =>
          extras.recall_type === "workspace_context" ? (
            <WorkspaceContext extras={extras} />
          ) : (
            knowledge.map((k) => (
              <section key={k.name} className="knowledge">
                <h4>
                  {k.name} <span className="muted">{t("ev.triggeredBy", { trigger: k.trigger })}</span>
                </h4>
                <Markdown text={k.content} />
              </section>
            ))
          )
        }
      </Collapsible>
    </EventShell>
  );
}

export function ChangeAgentStateView({ event }: { event: ChangeAgentStateAction }) {
  const { t } = useTranslation("conversation");
  const state = event.args.agent_state;
  return (
    <EventShell event={event} variant="compact" label={t("ev.stateChange")}>
      <p className="compact-line muted">
        <Trans text={t(event.source === "user" ? "ev.userSetState" : "ev.agentSetState", { state })} b={<strong />} />
      </p>
    </EventShell>
  );
}

export function AgentStateErrorView({ event }: { event: AgentStateChangedObservation }) {
  const { t } = useTranslation("conversation");
  return (
    <EventShell event={event} variant="error" heading={`Agent ${event.extras.agent_state.replace("_", " ")}`} label={t("ev.agentError")}>
      <p className="error-text">{event.extras.reason}</p>
    </EventShell>
  );
}

export function CondensationView({ event }: { event: CondensationAction }) {
  const { summary, forgotten_event_ids, forgotten_events_start_id, forgotten_events_end_id } = event.args;
  const count =
    forgotten_event_ids?.length ??
    (forgotten_events_start_id != null && forgotten_events_end_id != null
      ? forgotten_events_end_id - forgotten_events_start_id + 1
      : 0);
  const { t } = useTranslation("conversation");
  const text = t("ev.condensedCount", { n: count });
  return (
    <EventShell event={event} variant="compact" label={t("ev.historyCondensed")}>
      {summary ? (
        <Collapsible summary={<span className="muted">{text}</span>}>{() => <Markdown text={summary} />}</Collapsible>
      ) : (
        <p className="compact-line muted">{text}</p>
      )}
    </EventShell>
  );
}

export function CondensationRequestView({ event }: { event: CondensationRequestAction }) {
  const { t } = useTranslation("conversation");
  return (
    <EventShell event={event} variant="compact" label={t("ev.condensationRequested")}>
      <p className="compact-line muted">{t("ev.condensationRequestText")}</p>
    </EventShell>
  );
}

export function CondenseResultView({ event }: { event: CondenseObservation }) {
  const { t } = useTranslation("conversation");
  return (
    <EventShell event={event} variant="compact" label={t("ev.historyCondensed")}>
      <Collapsible summary={<span className="muted">{t("ev.historyCondensed")}</span>}>
        {() => <Markdown text={event.content} />}
      </Collapsible>
    </EventShell>
  );
}

export function SuccessView({ event }: { event: SuccessObservation }) {
  const { t } = useTranslation("conversation");
  return (
    <EventShell event={event} variant="compact" label={t("ev.success")}>
      <p className="compact-line">
        <span className="pill pill--ok">ok</span> {event.content}
      </p>
    </EventShell>
  );
}

export function ErrorView({ event }: { event: ErrorObservation }) {
  const { t } = useTranslation("conversation");
  return (
    <EventShell event={event} variant="error" heading={t("ev.error")} label={t("ev.error")}>
      <p className="error-text">{event.content}</p>
      {event.extras.error_id && <p className="muted error-id">{event.extras.error_id}</p>}
    </EventShell>
  );
}

export function UserRejectView({ event }: { event: UserRejectObservation }) {
  const { t } = useTranslation("conversation");
  return (
    <EventShell event={event} variant="compact" label={t("ev.actionRejected")}>
      <p className="compact-line">
        <span className="pill pill--error">{t("risk.rejected")}</span> {event.content || t("ev.youRejected")}
      </p>
    </EventShell>
  );
}
