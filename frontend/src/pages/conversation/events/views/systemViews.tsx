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
import { Collapsible } from "../../display/Collapsible";
import { Markdown } from "../../display/Markdown";
import { EventShell } from "../EventShell";

function WorkspaceContext({ extras }: { extras: RecallObservation["extras"] }) {
  const rows: [string, string][] = [
    ["Repository", extras.repo_name],
    ["Directory", extras.repo_directory],
    ["Branch", extras.repo_branch],
    ["Working directory", extras.working_dir],
    ["Date", extras.date],
    ["Hosts", Object.keys(extras.runtime_hosts ?? {}).join(", ")],
    ["Secrets", Object.keys(extras.custom_secrets_descriptions ?? {}).join(", ")],
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
  const { extras } = event;
  const knowledge = extras.microagent_knowledge ?? [];
  const summary =
    extras.recall_type === "workspace_context"
      ? "Added workspace context"
      : `Added microagent knowledge${knowledge.length ? `: ${knowledge.map((k) => k.name).join(", ")}` : ""}`;
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
                  {k.name} <span className="muted">(triggered by “{k.trigger}”)</span>
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
  const state = event.args.agent_state;
  return (
    <EventShell event={event} variant="compact" label="Agent state change">
      <p className="compact-line muted">
        {event.source === "user" ? "You set the agent to " : "Agent state set to "}
        <strong>{state}</strong>
      </p>
    </EventShell>
  );
}

export function AgentStateErrorView({ event }: { event: AgentStateChangedObservation }) {
  return (
    <EventShell event={event} variant="error" heading={`Agent ${event.extras.agent_state.replace("_", " ")}`} label="Agent error">
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
  const text = `Condensed the history (${count} event${count === 1 ? "" : "s"} summarised or dropped)`;
  return (
    <EventShell event={event} variant="compact" label="History condensed">
      {summary ? (
        <Collapsible summary={<span className="muted">{text}</span>}>{() => <Markdown text={summary} />}</Collapsible>
      ) : (
        <p className="compact-line muted">{text}</p>
      )}
    </EventShell>
  );
}

export function CondensationRequestView({ event }: { event: CondensationRequestAction }) {
  return (
    <EventShell event={event} variant="compact" label="Condensation requested">
      <p className="compact-line muted">Requested a condensation of the history</p>
    </EventShell>
  );
}

export function CondenseResultView({ event }: { event: CondenseObservation }) {
  return (
    <EventShell event={event} variant="compact" label="History condensed">
      <Collapsible summary={<span className="muted">History condensed</span>}>
        {() => <Markdown text={event.content} />}
      </Collapsible>
    </EventShell>
  );
}

export function SuccessView({ event }: { event: SuccessObservation }) {
  return (
    <EventShell event={event} variant="compact" label="Success">
      <p className="compact-line">
        <span className="pill pill--ok">ok</span> {event.content}
      </p>
    </EventShell>
  );
}

export function ErrorView({ event }: { event: ErrorObservation }) {
  return (
    <EventShell event={event} variant="error" heading="Error" label="Error">
      <p className="error-text">{event.content}</p>
      {event.extras.error_id && <p className="muted error-id">{event.extras.error_id}</p>}
    </EventShell>
  );
}

export function UserRejectView({ event }: { event: UserRejectObservation }) {
  return (
    <EventShell event={event} variant="compact" label="Action rejected">
      <p className="compact-line">
        <span className="pill pill--error">rejected</span> {event.content || "You rejected the action."}
      </p>
    </EventShell>
  );
}
