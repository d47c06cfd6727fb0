/** Conversation text: messages, the system prompt, thoughts, finish and reject. */
import type {
  FinishAction,
  MessageAction,
  RejectAction,
  SystemMessageAction,
  ThinkAction,
  ThinkObservation,
} from "../../../../api/types";
import { Collapsible } from "../../display/Collapsible";
import { CopyButton } from "../../display/CopyButton";
import { Markdown } from "../../display/Markdown";
import { withoutFilePaths } from "../../attachments";
import { EventShell, Json } from "../EventShell";

function Attachments({ images, files }: { images: string[] | null; files: string[] | null }) {
  if (!images?.length && !files?.length) return null;
  return (
    <div className="attachments">
      {images?.map((src, i) => (
        <a key={i} href={src} target="_blank" rel="noopener noreferrer">
          <img src={src} alt={`Attached image ${i + 1}`} className="attachment-image" />
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
  const fromUser = event.source === "user";
  const shown = withoutFilePaths(event.args.content, event.args.file_urls);
  return (
    <EventShell event={event} variant={fromUser ? "user" : "agent"} label={fromUser ? "Your message" : "Agent message"}>
      {shown && <CopyButton text={shown} />}
      <Markdown text={shown} />
      <Attachments images={event.args.image_urls} files={event.args.file_urls} />
    </EventShell>
  );
}

export function SystemMessageView({ event }: { event: SystemMessageAction }) {
  const { agent_class, openhands_version, tools } = event.args;
  const details = [agent_class, openhands_version && `v${openhands_version}`, tools && `${tools.length} tools`]
    .filter(Boolean)
    .join(" · ");
  return (
    <EventShell event={event} variant="compact" label="System prompt">
      <Collapsible summary={`System prompt${details ? ` (${details})` : ""}`}>
        {() => <pre className="code-block" tabIndex={0}>{event.args.content}</pre>}
      </Collapsible>
    </EventShell>
  );
}

export function ThinkActionView({ event }: { event: ThinkAction }) {
  return (
    <EventShell event={event} variant="thought" label="Agent thought">
      <Markdown text={event.args.thought || event.message} />
    </EventShell>
  );
}

export function ThinkObservationView({ event }: { event: ThinkObservation }) {
  return (
    <EventShell event={event} variant="thought" label="Agent thought">
      <Markdown text={event.content} />
    </EventShell>
  );
}

export function FinishView({ event }: { event: FinishAction }) {
  const text = event.args.final_thought || event.message;
  const outputs = event.args.outputs;
  return (
    <EventShell event={event} variant="final" heading="Task finished" label="Task finished">
      {text && <CopyButton text={text} />}
      <Markdown text={text} />
      {Object.keys(outputs).length > 0 && (
        <Collapsible summary="Outputs">{() => <Json value={outputs} />}</Collapsible>
      )}
    </EventShell>
  );
}

export function RejectView({ event }: { event: RejectAction }) {
  return (
    <EventShell event={event} variant="error" heading="The agent rejected the task" label="Task rejected">
      <Markdown text={event.message} />
    </EventShell>
  );
}
