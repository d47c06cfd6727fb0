import { useEffect, useRef } from "react";
import type { WorkspaceApi } from "../../../api/workspace";
import { useAsync } from "../../../hooks/useAsync";
import { vscodeLogin } from "./vscodeLogin";

const FRAME_NAME = "oh-vscode-frame";

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
  if (!login) {
    return (
      <p className="muted panel-empty" data-testid="vscode-disabled">
        VS Code is not available in this sandbox. Enable it with <code>enable_vscode = true</code> in the{" "}
        <code>[sandbox]</code> configuration.
      </p>
    );
  }
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
