import { useEffect, useRef } from "react";
import { getVSCodeImageStatus } from "../../../api/vscodeImage";
import type { WorkspaceApi } from "../../../api/workspace";
import { useAsync } from "../../../hooks/useAsync";
import { vscodeLogin } from "./vscodeLogin";
import { vscodeNotice } from "./vscodeStatus";

const FRAME_NAME = "oh-vscode-frame";
// While the VS Code image builds (minutes), how often the tab asks for its progress.
const STATUS_POLL_MS = 5000;

/**
 * VS Code (code-server in the sandbox) in a frame. The frame's first load is a form post
 * of the sandbox token to code-server's login, which then redirects to the workspace.
 */
export function VSCodeTab({ workspace }: { workspace: WorkspaceApi }) {
  const url = useAsync(() => workspace.vscodeUrl(), [workspace]);
  const form = useRef<HTMLFormElement>(null);
  const login = url.data ? vscodeLogin(url.data, window.location.hostname) : null;

  // Sign in once per URL (a new token means a new sandbox).
  const signIn = login ? `${login.action}\n${login.token}` : "";
  useEffect(() => {
    if (signIn) form.current?.submit();
  }, [signIn]);

  if (url.error) return <p className="form-error" role="alert">{url.error.message}</p>;
  if (url.loading) return <p className="muted panel-empty">Looking for VS Code…</p>;
  if (!login) return <VSCodeUnavailable onRecheck={url.reload} />;
  return (
    <div className="vscode-tab">
      <div className="toolbar" role="toolbar" aria-label="VS Code">
        <form method="post" action={login.action} target="_blank">
          <input type="hidden" name="password" value={login.token} />
          <button type="submit" className="button button--small">
            Open in a new tab
          </button>
        </form>
      </div>
      <form ref={form} method="post" action={login.action} target={FRAME_NAME} hidden>
        <input type="hidden" name="password" value={login.token} />
      </form>
      <iframe name={FRAME_NAME} title="VS Code" className="vscode-frame" data-testid="vscode-frame" />
    </div>
  );
}

/** Why this sandbox has no VS Code: off, or its image still building in the background. */
function VSCodeUnavailable({ onRecheck }: { onRecheck: () => void }) {
  const status = useAsync(() => getVSCodeImageStatus(), []);
  const notice = vscodeNotice(status.data);
  const { reload } = status;
  const state = status.data?.state;

  useEffect(() => {
    if (!notice.poll) return undefined;
    const timer = window.setInterval(() => {
      reload();
      // Not started yet is not "off": this sandbox's VS Code may still come up.
      if (state === "unknown") onRecheck();
    }, STATUS_POLL_MS);
    return () => window.clearInterval(timer);
  }, [notice.poll, reload, onRecheck, state]);

  if (status.loading && !status.data) return <p className="muted panel-empty">Looking for VS Code…</p>;
  return (
    <div className="muted panel-empty" data-testid="vscode-disabled" data-state={state ?? "unavailable"}>
      <p>{notice.text}</p>
      {notice.detail && (
        <p>
          <code data-testid="vscode-build-progress">{notice.detail}</code>
        </p>
      )}
    </div>
  );
}
