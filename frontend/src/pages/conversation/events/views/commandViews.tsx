/** Shell commands and IPython cells, with their outputs collapsed by default. */
import type {
  CmdOutputObservation,
  CmdRunAction,
  IPythonRunCellAction,
  IPythonRunCellObservation,
} from "../../../../api/types";
import { CodeBlock } from "../../display/CodeBlock";
import { Collapsible } from "../../display/Collapsible";
import { ActionBadges, EventShell, Thought } from "../EventShell";

function lineCount(text: string): number {
  if (!text) return 0;
  return text.split("\n").length;
}

export function CmdRunView({ event }: { event: CmdRunAction }) {
  const { command, is_input, thought, confirmation_state, security_risk } = event.args;
  return (
    <EventShell
      event={event}
      variant="card"
      heading={
        <>
          {is_input ? "Input to the running command" : "Command"}{" "}
          <ActionBadges risk={security_risk} confirmation={confirmation_state} />
        </>
      }
      label={`Command: ${command}`}
    >
      <Thought text={thought} />
      <CodeBlock className="command" code={`$ ${command}`} language="bash" />
    </EventShell>
  );
}

export function CmdOutputView({ event }: { event: CmdOutputObservation }) {
  const exitCode = event.extras.metadata?.exit_code ?? -1;
  const ok = exitCode === 0;
  const lines = lineCount(event.content);
  return (
    <EventShell event={event} variant="compact" label={`Output of ${event.extras.command}`}>
      <Collapsible
        className="output"
        testId="command-output"
        summary={
          <>
            <span className={ok ? "pill pill--ok" : exitCode === -1 ? "pill" : "pill pill--error"}>
              {exitCode === -1 ? "no exit code" : `exit ${exitCode}`}
            </span>{" "}
            Output of <code>{event.extras.command || "(terminal)"}</code>{" "}
            <span className="muted">
              ({lines} line{lines === 1 ? "" : "s"})
            </span>
          </>
        }
      >
        {() => <CodeBlock className="terminal-output" code={event.content || "(no output)"} />}
      </Collapsible>
    </EventShell>
  );
}

export function IPythonRunView({ event }: { event: IPythonRunCellAction }) {
  const { code, thought, confirmation_state, security_risk } = event.args;
  return (
    <EventShell
      event={event}
      variant="card"
      heading={
        <>
          Python <ActionBadges risk={security_risk} confirmation={confirmation_state} />
        </>
      }
      label="Python code"
    >
      <Thought text={thought} />
      <CodeBlock code={code} language="python" />
    </EventShell>
  );
}

export function IPythonOutputView({ event }: { event: IPythonRunCellObservation }) {
  const images = event.extras.image_urls ?? [];
  return (
    <EventShell event={event} variant="compact" label="Python output">
      <Collapsible
        className="output"
        testId="command-output"
        summary={
          <>
            Python output <span className="muted">({lineCount(event.content)} lines)</span>
          </>
        }
      >
        {() => (
          <>
            <CodeBlock className="terminal-output" code={event.content || "(no output)"} />
            {images.map((src, i) => (
              <img key={i} src={src} alt={`Python output image ${i + 1}`} className="attachment-image" />
            ))}
          </>
        )}
      </Collapsible>
    </EventShell>
  );
}
