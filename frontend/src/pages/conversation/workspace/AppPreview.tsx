/** A served app in a frame, with a path bar to move around it, a reload and an open-in-tab link. */
import { useEffect, useState, type FormEvent } from "react";
import { appUrl, hostOf, pathOf } from "./appPath";

export function AppPreview({ base }: { base: string }) {
  const [url, setUrl] = useState(base);
  const [typed, setTyped] = useState(() => pathOf(base));
  const [error, setError] = useState<string | null>(null);
  // Bumped to reload the frame at the same address.
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    setUrl(base);
    setTyped(pathOf(base));
    setError(null);
  }, [base]);

  function go(event: FormEvent) {
    event.preventDefault();
    const next = appUrl(base, typed);
    if (next === null) {
      setError("Type a path on this app, such as /docs or /api/items?page=2.");
      return;
    }
    setError(null);
    setUrl(next);
    setTyped(pathOf(next));
    setGeneration((n) => n + 1);
  }

  return (
    <div className="app-preview-pane">
      <form className="app-path-bar" role="search" aria-label="App address" onSubmit={go}>
        <span className="app-path-bar__origin" aria-hidden="true">
          {hostOf(base)}
        </span>
        <label htmlFor="app-path" className="visually-hidden">
          Path in the app
        </label>
        <input
          id="app-path"
          data-testid="app-path"
          value={typed}
          spellCheck={false}
          onChange={(e) => setTyped(e.target.value)}
        />
        <button type="submit" className="button button--small" data-testid="app-path-go">
          Go
        </button>
        <button type="button" className="button button--small button--ghost" aria-label="Reload the app" onClick={() => setGeneration((n) => n + 1)}>
          Reload
        </button>
        <a className="button button--small button--ghost" href={url} target="_blank" rel="noopener noreferrer" aria-label="Open the app in a new tab">
          Open
        </a>
      </form>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <iframe key={generation} className="app-preview" src={url} title={`Preview of ${url}`} data-testid="served-app-frame" />
    </div>
  );
}
