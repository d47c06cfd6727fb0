import { useCallback, useEffect, useState } from "react";
import type { WebHost } from "../../../api/types";
import type { WorkspaceApi } from "../../../api/workspace";
import { useAsync } from "../../../hooks/useAsync";
import { AppPreview } from "./AppPreview";
import { appsHint, LIVE_HOSTS_POLL_MS } from "./appsHint";

interface Props {
  workspace: WorkspaceApi;
  /** Id of the latest observation that may have changed the sandbox (a command ran). */
  changeId: number;
  /** The tab is shown: only then does it keep looking. */
  active: boolean;
}

/**
 * The sandbox's reserved app ports that something answers on (the server probes
 * them), each with a link and a preview frame. While none answers, a hint says
 * which ports count. Looked at again after every command, and every few seconds
 * while the tab is shown, since a server started in the background binds later.
 */
export function AppsTab({ workspace, changeId, active }: Props) {
  const reserved = useAsync(() => workspace.webHosts(), [workspace]);
  const [live, setLive] = useState<WebHost[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [preview, setPreview] = useState<string | null>(null);
  const refresh = useCallback(() => setGeneration((n) => n + 1), []);

  useEffect(() => {
    if (!active) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const look = () => {
      workspace.webHosts({ live: true, signal: controller.signal }).then(
        (hosts) => {
          if (controller.signal.aborted) return;
          setLive(hosts);
          setError(null);
          timer = setTimeout(look, LIVE_HOSTS_POLL_MS);
        },
        (reason: unknown) => {
          if (controller.signal.aborted) return;
          setError(reason instanceof Error ? reason.message : String(reason));
          timer = setTimeout(look, LIVE_HOSTS_POLL_MS);
        },
      );
    };
    look();
    return () => {
      controller.abort();
      if (timer) clearTimeout(timer);
    };
  }, [workspace, changeId, active, generation]);

  // A preview of an app that stopped answering goes with it.
  useEffect(() => {
    if (preview && live && !live.some((h) => h.url === preview)) setPreview(null);
  }, [live, preview]);

  const ports = (reserved.data ?? []).map((h) => h.port);
  return (
    <div className="apps-tab" data-testid="served-apps">
      <div className="toolbar" role="toolbar" aria-label="Served apps">
        <button type="button" className="button button--small" onClick={refresh} aria-label="Refresh served apps">
          Refresh
        </button>
      </div>
      {error && <p className="form-error" role="alert">{error}</p>}
      {live === null && !error && <p className="muted">Looking for served apps…</p>}
      {live && live.length === 0 && (
        <p className="muted" data-testid="served-apps-hint">
          {appsHint(ports)}
        </p>
      )}
      {live && live.length > 0 && (
        <ul className="host-list">
          {live.map(({ url, port }) => (
            <li key={url} data-port={port}>
              <a href={url} target="_blank" rel="noopener noreferrer" data-testid="served-app-link">
                {url}
              </a>
              <button
                type="button"
                className="button button--small button--ghost"
                data-testid="served-app-preview"
                onClick={() => setPreview(url)}
                aria-label={`Preview ${url}`}
              >
                Preview
              </button>
            </li>
          ))}
        </ul>
      )}
      {preview && <AppPreview base={preview} />}
    </div>
  );
}
