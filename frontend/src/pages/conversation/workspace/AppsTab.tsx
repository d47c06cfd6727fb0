import { useState } from "react";
import type { WorkspaceApi } from "../../../api/workspace";
import { useAsync } from "../../../hooks/useAsync";

/** Apps the agent serves from the sandbox (web-hosts), with a preview frame. */
export function AppsTab({ workspace }: { workspace: WorkspaceApi }) {
  const hosts = useAsync(() => workspace.webHosts(), [workspace]);
  const [preview, setPreview] = useState<string | null>(null);
  return (
    <div className="apps-tab" data-testid="served-apps">
      <div className="toolbar" role="toolbar" aria-label="Served apps">
        <button type="button" className="button button--small" onClick={hosts.reload} aria-label="Refresh served apps">
          Refresh
        </button>
      </div>
      {hosts.error && <p className="form-error" role="alert">{hosts.error.message}</p>}
      {hosts.data && hosts.data.length === 0 && <p className="muted">No app ports are exposed by the sandbox.</p>}
      {hosts.data && hosts.data.length > 0 && (
        <ul className="host-list">
          {hosts.data.map((url) => (
            <li key={url}>
              <a href={url} target="_blank" rel="noopener noreferrer" data-testid="served-app-link">
                {url}
              </a>
              <button type="button" className="button button--small button--ghost" onClick={() => setPreview(url)} aria-label={`Preview ${url}`}>
                Preview
              </button>
            </li>
          ))}
        </ul>
      )}
      {preview && <iframe className="app-preview" src={preview} title={`Preview of ${preview}`} />}
    </div>
  );
}
