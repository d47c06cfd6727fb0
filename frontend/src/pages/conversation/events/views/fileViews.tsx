/** File reads, writes and edits; edits are shown as diffs. */
import type {
  FileDownloadObservation,
  FileEditAction,
  FileEditObservation,
  FileReadAction,
  FileReadObservation,
  FileWriteAction,
  FileWriteObservation,
} from "../../../../api/types";
import { CodeBlock } from "../../display/CodeBlock";
import { Collapsible } from "../../display/Collapsible";
import { DiffView, UnifiedDiff } from "../../display/DiffView";
import { ActionBadges, EventShell, Path, Thought } from "../EventShell";

function rangeText(start: number, end: number, viewRange: number[] | null): string {
  if (viewRange && viewRange.length === 2) return ` (lines ${viewRange[0]}–${viewRange[1] === -1 ? "end" : viewRange[1]})`;
  if (start > 0 || end !== -1) return ` (lines ${start}–${end === -1 ? "end" : end})`;
  return "";
}

export function FileReadView({ event }: { event: FileReadAction }) {
  const { path, start, end, view_range, thought } = event.args;
  return (
    <EventShell event={event} variant="compact" label={`Reading ${path}`}>
      <Thought text={thought} />
      <p className="compact-line">
        Reading <Path path={path} />
        {rangeText(start, end, view_range)}
      </p>
    </EventShell>
  );
}

export function FileReadResultView({ event }: { event: FileReadObservation }) {
  return (
    <EventShell event={event} variant="compact" label={`Read ${event.extras.path}`}>
      <Collapsible summary={<>Read <Path path={event.extras.path} /></>}>
        {() => <CodeBlock code={event.content} />}
      </Collapsible>
    </EventShell>
  );
}

export function FileWriteView({ event }: { event: FileWriteAction }) {
  const { path, content, thought, security_risk } = event.args;
  return (
    <EventShell
      event={event}
      variant="card"
      heading={
        <>
          Write file <ActionBadges risk={security_risk} />
        </>
      }
      label={`Writing ${path}`}
    >
      <Thought text={thought} />
      <Collapsible summary={<>Writing <Path path={path} /></>}>{() => <CodeBlock code={content} />}</Collapsible>
    </EventShell>
  );
}

export function FileWriteResultView({ event }: { event: FileWriteObservation }) {
  return (
    <EventShell event={event} variant="compact" label={`Wrote ${event.extras.path}`}>
      <p className="compact-line">
        Wrote <Path path={event.extras.path} />
      </p>
    </EventShell>
  );
}

/** The proposed change, folded: the observation that follows shows the applied diff. */
function EditBody({ args }: { args: FileEditAction["args"] }) {
  switch (args.command) {
    case "str_replace":
      return (
        <Collapsible summary="Proposed replacement">
          {() => <DiffView original={args.old_str ?? ""} modified={args.new_str ?? ""} label={`Replacement in ${args.path}`} />}
        </Collapsible>
      );
    case "create":
      return (
        <Collapsible summary="File content">
          {() => <CodeBlock code={args.file_text ?? ""} />}
        </Collapsible>
      );
    case "insert":
      return (
        <>
          <p className="compact-line">Insert after line {args.insert_line ?? 0}:</p>
          <CodeBlock code={args.new_str ?? ""} />
        </>
      );
    case "undo_edit":
      return <p className="compact-line">Undo the last edit.</p>;
    case "view":
      return null;
    default:
      // llm_based_edit (or "write"): the content replaces lines start..end.
      return (
        <Collapsible summary={`New content${args.start !== 1 || args.end !== -1 ? ` for lines ${args.start}–${args.end === -1 ? "end" : args.end}` : ""}`}>
          {() => <CodeBlock code={args.content || args.file_text || ""} />}
        </Collapsible>
      );
  }
}

const EDIT_VERB: Record<string, string> = {
  create: "Create",
  str_replace: "Edit",
  insert: "Insert into",
  undo_edit: "Undo edit of",
  view: "View",
};

export function FileEditView({ event }: { event: FileEditAction }) {
  const { path, command, thought, security_risk } = event.args;
  const verb = EDIT_VERB[command] ?? "Edit";
  return (
    <EventShell
      event={event}
      variant="card"
      heading={
        <>
          {verb} <Path path={path} /> <ActionBadges risk={security_risk} />
        </>
      }
      label={`${verb} ${path}`}
    >
      <Thought text={thought} />
      <EditBody args={event.args} />
    </EventShell>
  );
}

export function FileEditResultView({ event }: { event: FileEditObservation }) {
  const { path, prev_exist, old_content, new_content, diff } = event.extras;
  let body;
  if (old_content != null && new_content != null && old_content !== new_content) {
    body = <DiffView original={old_content} modified={new_content} label={`Changes to ${path}`} />;
  } else if (diff) {
    body = <UnifiedDiff diff={diff} />;
  } else {
    body = <CodeBlock code={event.content} />;
  }
  return (
    <EventShell
      event={event}
      variant="card"
      heading={
        <>
          {prev_exist ? "Edited" : "Created"} <Path path={path} />
        </>
      }
      label={`${prev_exist ? "Edited" : "Created"} ${path}`}
    >
      {body}
    </EventShell>
  );
}

export function FileDownloadView({ event }: { event: FileDownloadObservation }) {
  return (
    <EventShell event={event} variant="compact" label="File downloaded">
      <p className="compact-line">
        Downloaded <Path path={event.extras.file_path} />
      </p>
    </EventShell>
  );
}
