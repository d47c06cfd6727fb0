/** Conversation text: messages, the system prompt, thoughts, finish and reject. */
import type {
  FinishAction,
  MessageAction,
  RejectAction,
  SystemMessageAction,
  ThinkAction,
  ThinkObservation,
} from "../../../../api/types";
import { useTranslation } from "../../../../i18n/useTranslation";
import { Collapsible } from "../../display/Collapsible";
import { CopyButton } from "../../display/CopyButton";
import { Markdown } from "../../display/Markdown";
import { withoutFilePaths } from "../../attachments";
import { EventShell, Json } from "../EventShell";

function Attachments({ images, files }: { images: string[] | null; files: string[] | null }) {
  const { t } = useTranslation("conversation");
  if (!images?.length && !files?.length) return null;
  return (
    <div className="attachments">
      {images?.map((src, i) => (
        <a key={i} href={src} target="_blank" rel="noopener noreferrer">
          <img src={src} alt={t("events.attachedImage", { n: i + 1 })} className="attachment-image" />
        </a>
      ))}
      {files?.map((path) => (
        <code key={path} className="path">
          {path}
        </code>
      ))}
    </div>
  );
}

export function MessageView({ event }: { event: MessageAction }) {
  const { t } = useTranslation("conversation");
  const fromUser = event.source === "user";
  const shown = withoutFilePaths(event.args.content, event.args.file_urls);
  return (
    <EventShell event={event} variant={fromUser ? "user" : "agent"} label={fromUser ? t("ev.yourMessage") : t("ev.agentMessage")}>
      {shown && <CopyButton text={shown} />}
      <Markdown text={shown} />
      <Attachments images={event.args.image_urls} files={event.args.file_urls} />
    </EventShell>
  );
}

export function SystemMessageView({ event }: { event: SystemMessageAction }) {
  const { t } = useTranslation("conversation");
  const { agent_class, openhands_version, tools } = event.args;
  const details = [agent_class, openhands_version && `v${openhands_version}`, tools && t("ev.tools", { n: tools.length })]
    .filter(Boolean)
    .join(" · ");
  return (
    <EventShell event={event} variant="compact" label={t("ev.systemPrompt")}>
      <Collapsible summary={details ? t("ev.systemPromptWith", { details }) : t("ev.systemPrompt")}>
        {() => <pre className="code-block" tabIndex={0}>{event.args.content}</pre>}
      </Collapsible>
    </EventShell>
  );
}

export function ThinkActionView({ event }: { event: ThinkAction }) {
  const { t } = useTranslation("conversation");
  return (
    <EventShell event={event} variant="thought" label={t("ev.thought")}>
      <Markdown text={event.args.thought || event.message} />
    </EventShell>
  );
}

export function ThinkObservationView({ event }: { event: ThinkObservation }) {
  const { t } = useTranslation("conversation");
  return (
    <EventShell event={event} variant="thought" label={t("ev.thought")}>
      <Markdown text={event.content} />
    </EventShell>
  );
}

export function FinishView({ event }: { event: FinishAction }) {
  const { t } = useTranslation("conversation");
  const text = event.args.final_thought || event.message;
  const outputs = event.args.outputs;
  return (
    <EventShell event={event} variant="final" heading={t("ev.taskFinished")} label={t("ev.taskFinished")}>
      {text && <CopyButton text={text} />}
      <Markdown text={text} />
      {Object.keys(outputs).length > 0 && (
        <Collapsible summary={t("ev.outputs")}>{() => <Json value={outputs} />}</Collapsible>
      )}
    </EventShell>
  );
}

export function RejectView({ event }: { event: RejectAction }) {
  const { t } = useTranslation("conversation");
  return (
    <EventShell event={event} variant="error" heading={t("ev.agentRejected")} label={t("ev.taskRejected")}>
      <Markdown text={event.message} />
    </EventShell>
  );
}
