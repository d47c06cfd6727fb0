import { useEffect, useState } from "react";
import type { WorkspaceApi } from "../../../api/workspace";

/** Shows one workspace file (select-file); line numbers are CSS counters, so the text copies cleanly. */
export function FileViewer({ workspace, path, version }: { workspace: WorkspaceApi; path: string | null; version: number }) {
  const [code, setCode] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!path) return;
    let cancelled = false;
    setError(null);
    workspace.selectFile(path).then(
      (text) => !cancelled && setCode(text),
      (reason: unknown) => {
        if (cancelled) return;
        setCode(null);
        setError(reason instanceof Error ? reason.message : String(reason));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [workspace, path, version]);

  return (
    <section className="file-viewer" data-testid="file-viewer" aria-label={path ? `File ${path}` : "File viewer"}>
      {!path && <p className="muted panel-empty">Select a file to view it.</p>}
      {path && (
        <>
          <header className="file-viewer__path">
            <code>{path}</code>
          </header>
          {error && <p className="form-error" role="alert">{error}</p>}
          {code !== null && !error && (
            <pre className="code-block file-viewer__code" data-testid="file-viewer-content">
              {code.split("\n").map((line, i) => (
                <span key={i} className="line">
                  {line}
                  {"\n"}
                </span>
              ))}
            </pre>
          )}
        </>
      )}
    </section>
  );
}
