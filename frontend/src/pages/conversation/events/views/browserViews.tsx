/** Browsing: the URL or the browser-action script, and a compact result line. */
import type { BrowseInteractiveAction, BrowseUrlAction, BrowserOutputObservation } from "../../../../api/types";
import { CodeBlock } from "../../display/CodeBlock";
import { Collapsible } from "../../display/Collapsible";
import { Markdown } from "../../display/Markdown";
import { ActionBadges, EventShell, Thought } from "../EventShell";

export function BrowseView({ event }: { event: BrowseUrlAction }) {
  const { url, thought, security_risk } = event.args;
  return (
    <EventShell event={event} variant="compact" label={`Browsing ${url}`}>
      <Thought text={thought} />
      <p className="compact-line">
        Browsing{" "}
        <a href={url} target="_blank" rel="noopener noreferrer">
          {url}
        </a>{" "}
        <ActionBadges risk={security_risk} />
      </p>
    </EventShell>
  );
}

export function BrowseInteractiveView({ event }: { event: BrowseInteractiveAction }) {
  const { browser_actions, browsergym_send_msg_to_user, thought, security_risk } = event.args;
  return (
    <EventShell event={event} variant="compact" label="Browser actions">
      <Thought text={thought} />
      {browsergym_send_msg_to_user && <Markdown text={browsergym_send_msg_to_user} />}
      <Collapsible
        summary={
          <>
            Interacting with the browser <ActionBadges risk={security_risk} />
          </>
        }
      >
        {() => <CodeBlock code={browser_actions} />}
      </Collapsible>
    </EventShell>
  );
}

export function BrowserOutputView({ event }: { event: BrowserOutputObservation }) {
  const { url, error, last_browser_action_error } = event.extras;
  return (
    <EventShell event={event} variant="compact" label={`Visited ${url}`}>
      <Collapsible
        summary={
          <>
            Visited{" "}
            <a href={url} target="_blank" rel="noopener noreferrer">
              {url}
            </a>
            {error && <span className="pill pill--error">error</span>}
          </>
        }
      >
        {() => (
          <>
            {last_browser_action_error && <p className="form-error">{last_browser_action_error}</p>}
            <CodeBlock code={event.content || "(empty page)"} />
          </>
        )}
      </Collapsible>
    </EventShell>
  );
}
