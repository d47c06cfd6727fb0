import type { Screenshot } from "../../../state/conversationReducer";

/** The last page the agent's browser showed (BrowserOutputObservation.screenshot). */
export function BrowserTab({ screenshot }: { screenshot: Screenshot | null }) {
  if (!screenshot) {
    return (
      <p className="muted panel-empty" data-testid="browser-empty">
        The agent has not opened a web page yet.
      </p>
    );
  }
  return (
    <figure className="browser-tab" data-testid="browser-screenshot">
      <figcaption className="browser-tab__url">
        <a href={screenshot.url} target="_blank" rel="noopener noreferrer">
          {screenshot.url}
        </a>
      </figcaption>
      <img src={screenshot.src} alt={`Screenshot of ${screenshot.url}`} />
    </figure>
  );
}
